import { eventOperations } from '../routes/events.contract';
import { identityOperations } from '../routes/identity.contract';
import { platformOperations } from '../routes/platform.contract';
import { publicOperations } from '../routes/public.contract';
import { ruleOperations } from '../routes/rules.contract';
import { sendOperations } from '../routes/send.contract';
import { settingsOperations } from '../routes/settings.contract';
import { statsOperations } from '../routes/stats.contract';
import { streamOperations } from '../routes/stream.contract';
import type { Operation } from './operation';

// Every operation of the API, for the OpenAPI document. A test checks that each route the app
// registers is listed here, so a new routes module must add its contract.
export const LEGACY_OPERATIONS: readonly Operation[] = [
  ...publicOperations,
  ...identityOperations,
  ...streamOperations,
  ...eventOperations,
  ...ruleOperations,
  ...sendOperations,
  ...settingsOperations,
  ...statsOperations,
  ...platformOperations,
];
