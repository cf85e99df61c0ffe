import { operationFactory } from '../http/operation';
import type { ApiServices } from './services';

/** Declares one operation of the api; its handler receives the api's services. */
export const defineOperation = operationFactory<ApiServices>();
