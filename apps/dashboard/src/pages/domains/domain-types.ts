// The custom domains API's shapes, from the typed client.
import type { AnswerOf } from '@relay/client';

export type Domain = AnswerOf<'/api/domains', 'get'>['domains'][number];
export type DomainRecord = Domain['records'][number];
export type DomainChecks = AnswerOf<'/api/domains/{id}/verify', 'post'>['checks'];
