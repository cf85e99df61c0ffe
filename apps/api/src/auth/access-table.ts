import type { AccessRule } from '@relay/core';
import { operationKey } from '../http/operation';
import { ALL_OPERATIONS } from '../composition/catalog';

/**
 * The authorization table, derived from the operation declarations: every guarded operation
 * (`METHOD /path`) and the least role and API-key scope it needs. docs/authorization.md is
 * generated from it (`pnpm docs:authorization`).
 */
export const ACCESS_TABLE: Readonly<Record<string, AccessRule>> = Object.fromEntries(
  ALL_OPERATIONS.flatMap((op) =>
    op.access === 'public' || op.access === 'operator' ? [] : [[operationKey(op), op.access]],
  ),
);
