import { compileFilter, matches, type CompiledFilter, type FilterSubject } from '@relay/core';
import type { RuleRecord } from '@relay/db';
import type { Logger } from 'pino';

// A rule's routing filter (docs/routing.md), decided in prepare. Compiled once per cached rule record (the
// rule lookup hands the same object until it reloads), so an event pays one evaluation and one body parse.
// Destinations (issue 29 item 2) evaluate theirs with the same subject (`filterSubjectOf`, @relay/core, which
// the API's dry run builds too).

export { filterSubjectOf } from '@relay/core';

export type RuleFilterCheck = (rule: RuleRecord, subject: () => FilterSubject) => boolean;

export function createRuleFilterCheck(logger: Logger): RuleFilterCheck {
  const compiled = new WeakMap<RuleRecord, CompiledFilter | null>();
  function filterOf(rule: RuleRecord): CompiledFilter | null {
    if (compiled.has(rule)) return compiled.get(rule)!;
    const result = compileFilter(rule.filter);
    // Saved filters passed the same check: one that no longer compiles (a row written by hand) lets
    // nothing through rather than everything, and says so.
    if (!result.ok) logger.error({ ruleId: rule.id, errors: result.errors }, 'rule filter does not compile');
    const filter = result.ok ? result.filter : null;
    compiled.set(rule, filter);
    return filter;
  }
  return (rule, subject) => {
    if (rule.filter === null) return true;
    const filter = filterOf(rule);
    return filter !== null && matches(filter, subject());
  };
}
