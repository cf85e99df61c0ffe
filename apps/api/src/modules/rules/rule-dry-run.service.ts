import { AppError, compileFilter, filterSubjectOf, maskedHeaders, matches, type Principal } from '@relay/core';
import { DRY_RUN_DEFAULT_EVENTS, type ruleDryRunSchema } from '@relay/contracts';
import type { Repositories } from '@relay/db';
import type { z } from 'zod';

export interface RuleDryRunServiceDeps {
  repositories: Pick<Repositories, 'rules' | 'eventQueries'>;
  /** Header names every reader sees masked (SENSITIVE_HEADERS): the filter sees them masked too. */
  sensitiveHeaders: readonly string[];
}

type DryRunInput = z.output<typeof ruleDryRunSchema>;

// The dry run (docs/routing.md, "Dry run"): a filter tried on webhooks a rule already stored, read only. The
// filter sees each one as its caller reads it in the events API (sensitive headers masked), so a dry run cannot
// probe a credential's value; the subject is otherwise the one the worker's prepare stage builds.
export function createRuleDryRunService(deps: RuleDryRunServiceDeps) {
  const { rules, eventQueries } = deps.repositories;
  return {
    async dryRun(principal: Principal, ruleId: string, input: DryRunInput) {
      const compiled = compileFilter(input.filter);
      // The schema compiled it already; this is the same check, for the compiled form.
      if (!compiled.ok) throw new AppError('validation_failed', compiled.errors[0]?.message);
      if (!(await rules.findById(principal.orgId, ruleId))) throw new AppError('not_found', 'No such rule.');
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
        matched: matches(
          compiled.filter,
          filterSubjectOf({ ...row, headers: maskedHeaders(row.headers, deps.sensitiveHeaders) }),
        ),
      }));
      const matched = results.filter((r) => r.matched).length;
      return { matched, not_matched: results.length - matched, results };
    },
  };
}
