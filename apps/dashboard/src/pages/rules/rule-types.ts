// The API's provider (`/rules`) and hook shapes, from the typed client (the dashboard imports no server package).
import type { AnswerOf } from '@relay/client';

export type Rule = AnswerOf<'/rules/{id}', 'get'>;
export type Hook = AnswerOf<'/rules/{id}/hooks', 'get'>['hooks'][number];

export const HOOK_TRIGGERS = ['provider_succeeded', 'provider_failed'] as const satisfies readonly Hook['trigger'][];
export type HookTrigger = Hook['trigger'];
