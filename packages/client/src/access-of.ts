import { OPERATION_ACCESS } from './operation-access';

// The types of the generated access map (operation-access.ts), for clients that name an operation to say what
// it asks of its caller (the MCP server's tools): the API's rows, never a restated role or scope.

/** An operation as the typed client calls it: `'GET /rules/{id}'`. */
export type OperationKey = keyof typeof OPERATION_ACCESS;

type AnyAccess = (typeof OPERATION_ACCESS)[OperationKey];

type Row = Extract<AnyAccess, object>;
export type AccessRole = Row['role'];
export type ApiKeyScope = NonNullable<Row['scope']>;

/** One row of the authorization table: the least role and the API-key scope (null: none applies). */
export interface MemberAccess {
  readonly role: AccessRole;
  readonly scope: ApiKeyScope | null;
}

/** An operation an organization's member (or its API key) may call: one with an access row, or a public one. */
export type MemberOperation = {
  [K in OperationKey]: (typeof OPERATION_ACCESS)[K] extends 'operator' ? never : K;
}[OperationKey];

/** What an operation a member may call asks: its row, or `'public'`. */
export const accessOf = (operation: MemberOperation): MemberAccess | 'public' => OPERATION_ACCESS[operation];
