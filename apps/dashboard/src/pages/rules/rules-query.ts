import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import type { Rule } from './rule-types';

/** GET /rules: every rule (not paginated by the API); the rules and send pages share the cache entry. */
export const rulesQuery = {
  queryKey: ['rules'],
  queryFn: async (): Promise<{ rules: Rule[] }> => dataOf(client.GET('/rules')),
};
