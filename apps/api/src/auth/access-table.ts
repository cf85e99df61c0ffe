import type { AccessRule } from '@relay/core';
import { operationKey, type AnyOperation } from '../http/operation';

/**
 * The authorization table of some operations: every guarded operation (`METHOD /path`) and the least
 * role and API-key scope it needs. The catalog derives the api's table from its operations
 * (composition/catalog.ts); docs/authorization.md is generated from the same declarations.
 */
export function accessTableOf(
  operations: readonly Pick<AnyOperation<unknown>, 'method' | 'path' | 'access'>[],
): Readonly<Record<string, AccessRule>> {
  return Object.fromEntries(
    operations.flatMap((op) =>
      op.access === 'public' || op.access === 'operator' ? [] : [[operationKey(op), op.access]],
    ),
  );
}
