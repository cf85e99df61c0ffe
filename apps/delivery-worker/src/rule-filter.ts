import { compileFilter, matches, type CompiledFilter, type FilterSubject } from '@relay/core';
import type { RuleRecord, StoredEvent } from '@relay/db';
import type { Logger } from 'pino';

// A rule's routing filter (docs/routing.md), decided in prepare. Compiled once per cached rule record (the
// rule lookup hands the same object until it reloads), so an event pays one evaluation and one body parse.
// Destinations (issue 29 item 2) evaluate theirs with the same subject.

/** What a filter sees of a stored event: the body parsed when it is JSON (else its text), as received. */
export function filterSubjectOf(event: Pick<StoredEvent, 'body' | 'headers' | 'path' | 'query'>): FilterSubject {
  const text = Buffer.from(event.body.buffer, event.body.byteOffset, event.body.byteLength).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { body, headers: event.headers, path: event.path, query: event.query };
}

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
