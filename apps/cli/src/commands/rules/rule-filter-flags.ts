import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { UsageError } from '../../errors';
import { parseJsonBody } from '../send/send-body';
import type { RuleUpdateBody } from './rule-views';

// The routing filter (docs/routing.md) as flags: `--filter '<json>'`, `--filter @file.json`, `--filter-cel '<expr>'`,
// and `--no-filter` on update. Shared by `rules create`, `rules update` and `rules dry-run`.

export type RoutingFilter = NonNullable<RuleUpdateBody['filter']>;

export interface RuleFilterFlags {
  /** JSON, or `@path` to a JSON file; false from --no-filter. */
  filter?: string | false;
  filterCel?: string;
}

/** Adds --filter and --filter-cel (clearing: true adds --no-filter too). */
export function addRuleFilterFlags(cmd: Command, clearing: boolean): Command {
  cmd
    .option('--filter <json|@file>', 'a routing filter: JSON (\'{"body": {"type": "push"}}\') or @file.json')
    .option('--filter-cel <expression>', "a routing filter in CEL, e.g. 'body.amount >= 100'");
  if (clearing) cmd.option('--no-filter', 'remove the routing filter: every webhook goes to the target');
  return cmd;
}

async function jsonFilter(value: string): Promise<RoutingFilter> {
  let text = value;
  let where = '--filter';
  if (value.startsWith('@')) {
    where = value.slice(1);
    text = await readFile(where, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${where}: ${error.code ?? error.message}`);
    });
  }
  const parsed = parseJsonBody(text, where);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`${where} must be a JSON object, such as {"body": {"type": "push"}}`);
  return parsed as RoutingFilter;
}

/** The filter the flags give: a filter, null (--no-filter) or undefined (none given). The API checks it. */
export async function filterFromFlags(flags: RuleFilterFlags): Promise<RoutingFilter | null | undefined> {
  const given = [typeof flags.filter === 'string', flags.filter === false, flags.filterCel !== undefined];
  if (given.filter(Boolean).length > 1) throw new UsageError('give one of --filter, --filter-cel and --no-filter');
  if (flags.filter === false) return null;
  if (flags.filterCel !== undefined) {
    if (!flags.filterCel.trim()) throw new UsageError('--filter-cel needs an expression');
    return { cel: flags.filterCel };
  }
  return flags.filter === undefined ? undefined : jsonFilter(flags.filter);
}
