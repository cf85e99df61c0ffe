// The settings pages' shapes, from the typed client.
import type { AnswerOf } from '@relay/client';

export type Endpoint = AnswerOf<'/config/endpoint', 'get'>;
export type DefaultTarget = AnswerOf<'/config/default-target', 'get'>;
export type Organization = AnswerOf<'/api/organization', 'get'>;
export type NotificationSettings = AnswerOf<'/api/organization/notifications', 'get'>;
