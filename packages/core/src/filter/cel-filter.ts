import { Environment } from '@marcbachmann/cel-js';
import type { ASTNode } from '@marcbachmann/cel-js';
import type { FilterError, FilterSubject } from './filter-types';

// `{"cel": "<expression>"}`: Common Expression Language over body, headers, path and query. The parser's
// structural limits bound what an expression may be; two checks of our own bound what it may cost, since
// CEL's limits say nothing about time: no regular expression (`matches` runs a backtracking JS RegExp)
// and no macro inside another macro's body (two nested `all`s over a 10,000-element array are 10^8 steps).

export const CEL_LIMITS = {
  maxAstNodes: 1_000,
  maxDepth: 16,
  maxListElements: 100,
  maxMapEntries: 100,
  maxCallArguments: 8,
} as const;

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const FORBIDDEN_CALLS = new Set(['matches']);

const environment = new Environment({ limits: CEL_LIMITS, homogeneousAggregateLiterals: false })
  .registerVariable('body', 'dyn')
  .registerVariable('headers', 'map<string, dyn>')
  .registerVariable('path', 'string')
  .registerVariable('query', 'map<string, dyn>');

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

/** The first call our own limits refuse, by name; undefined when the expression is acceptable. */
function refusedCall(root: ASTNode): string | undefined {
  const stack: { node: ASTNode; inMacro: boolean }[] = [{ node: root, inMacro: false }];
  while (stack.length > 0) {
    const { node, inMacro } = stack.pop()!;
    let nested = inMacro;
    if (node.op === 'call' || node.op === 'rcall') {
      const name = (node.args as unknown[])[0] as string;
      if (FORBIDDEN_CALLS.has(name)) return `${name}() is not allowed (no regular expressions in filters)`;
      if (node.op === 'rcall' && MACROS.has(name)) {
        if (inMacro) return `${name}() inside another macro is not allowed (it would cost the product of the sizes)`;
        nested = true;
      }
    }
    const children = Array.isArray(node.args) ? (node.args as unknown[]).flat() : [node.args];
    for (const child of children) {
      if (child !== null && typeof child === 'object' && 'op' in child)
        stack.push({ node: child as ASTNode, inMacro: nested });
    }
  }
  return undefined;
}

export function compileCel(
  expression: unknown,
): { ok: true; test: (subject: FilterSubject) => boolean } | { ok: false; errors: FilterError[] } {
  const fail = (message: string) => ({ ok: false as const, errors: [{ path: 'filter.cel', at: ['cel'], message }] });
  if (typeof expression !== 'string' || expression.trim() === '') return fail('must be a non-empty CEL expression');
  let evaluate: ReturnType<Environment['parse']>;
  try {
    evaluate = environment.parse(expression);
  } catch (error) {
    return fail(firstLine(error));
  }
  const refused = refusedCall(evaluate.ast);
  if (refused) return fail(refused);
  const checked = environment.check(expression);
  if (!checked.valid) return fail(firstLine(checked.error));
  if (checked.type !== 'bool' && checked.type !== 'dyn') return fail(`must give a bool, not ${checked.type}`);
  return {
    ok: true,
    // A runtime error (a missing key, a wrong type met in this event) means no match: the filter cannot
    // say yes to this webhook, and a filter never makes delivery fail.
    test: (subject) => {
      try {
        return evaluate(subject) === true;
      } catch {
        return false;
      }
    },
  };
}
