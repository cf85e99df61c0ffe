import type { AnyOperation } from '../http/operation';
import { domainOperations } from './domains/domain.operations';
import type { ApiServices } from './services';

// Every operation of the API, in mounting order: Express matches in order, so fixed paths come
// before parameterised ones and public ingest (POST /{*path}) comes last.
export const ALL_OPERATIONS: readonly AnyOperation<ApiServices>[] = [...domainOperations];
