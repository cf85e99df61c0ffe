import {
  AppError,
  compileFilter,
  filterSubjectOf,
  maskedHeaders,
  matches,
  type FilterSubject,
  type OrgId,
  type Principal,
} from '@relay/core';
import { DRY_RUN_DEFAULT_EVENTS, type ruleDryRunSchema } from '@relay/contracts';
import type { Repositories } from '@relay/db';
import type { z } from 'zod';

export interface RuleDryRunServiceDeps {
  repositories: Pick<Repositories, 'rules' | 'eventQueries' | 'destinations'>;
  /** Header names every reader sees masked (SENSITIVE_HEADERS): the filter sees them masked too. */
  sensitiveHeaders: readonly string[];
}

type DryRunInput = z.output<typeof ruleDryRunSchema>;

// The dry run (docs/routing.md, "Dry run"): a filter tried on webhooks a rule already stored, read only. The
// filter sees each one as its caller reads it in the events API (sensitive headers masked), so a dry run cannot
// probe a credential's value; the subject is otherwise the one the worker's prepare stage builds.
// With `destination_id` and no `filter`: that destination's saved filter, as its fan-out applies it (null lets every
// webhook through; one that no longer compiles lets none through). With both: the typed filter, for that destination
// (the editor's case): the destination must still be the rule's.
export function createRuleDryRunService(deps: RuleDryRunServiceDeps) {
  const { rules, eventQueries, destinations } = deps.repositories;
  type Test = (subject: FilterSubject) => boolean;

  async function testFor(orgId: OrgId, ruleId: string, input: DryRunInput): Promise<Test> {
    const typed = input.filter === undefined ? undefined : compileFilter(input.filter);
    // The schema compiled it already; this is the same check, for the compiled form.
    if (typed && !typed.ok) throw new AppError('validation_failed', typed.errors[0]?.message);
    if (!(await rules.findById(orgId, ruleId))) throw new AppError('not_found', 'No such rule.');
    if (input.destination_id !== undefined) {
      const destination = await destinations.findById(orgId, ruleId, input.destination_id);
      if (!destination) throw new AppError('not_found', 'No such destination of this rule.');
      if (!typed) {
        if (destination.filter === null) return () => true;
        const saved = compileFilter(destination.filter);
        return saved.ok ? (subject) => matches(saved.filter, subject) : () => false;
      }
    }
    // The schema requires `filter` or `destination_id`.
    if (!typed) throw new AppError('validation_failed', 'Give `filter`, `destination_id`, or both.');
    return (subject) => matches(typed.filter, subject);
  }

  return {
    async dryRun(principal: Principal, ruleId: string, input: DryRunInput) {
      const test = await testFor(principal.orgId, ruleId, input);
      const ids = input.event_ids && [...new Set(input.event_ids)];
      const rows = await eventQueries.ruleRequests(
        principal.orgId,
        ruleId,
        ids ? { ids } : { newest: input.events ?? DRY_RUN_DEFAULT_EVENTS },
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      const missing = ids?.filter((id) => !byId.has(id)) ?? [];
      if (missing.length > 0)
        throw new AppError('not_found', `No event of this rule: ${missing.slice(0, 5).join(', ')}.`, { missing });
      const results = (ids ? ids.map((id) => byId.get(id)!) : rows).map((row) => ({
        event_id: row.id,
        matched: test(filterSubjectOf({ ...row, headers: maskedHeaders(row.headers, deps.sensitiveHeaders) })),
      }));
      const matched = results.filter((r) => r.matched).length;
      return { matched, not_matched: results.length - matched, results };
    },
  };
}
