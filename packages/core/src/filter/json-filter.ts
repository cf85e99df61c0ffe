import type { FilterError } from './filter-types';

// Hookdeck-compatible JSON filter (docs/routing.md "The filter language"), compiled once to closures so an
// evaluation is a walk over the event's fields with no parsing. No regular expressions, no code, no `$ref`:
// every step is one comparison, so the time is bounded by the filter's size times the event's array sizes.

/** Tests one value of the event; `undefined` means the field is missing. */
export type Matcher = (value: unknown) => boolean;

type Primitive = string | number | boolean | null;
type Path = (string | number)[];

const isPrimitive = (v: unknown): v is Primitive =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A test of a scalar: against the value itself, or against any element when the event holds an array. */
const anyElement =
  (test: (v: unknown) => boolean): Matcher =>
  (value) =>
    Array.isArray(value) ? value.some(test) : test(value);

const OPERATORS = [
  '$eq',
  '$neq',
  '$in',
  '$nin',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$startsWith',
  '$endsWith',
  '$exist',
  '$and',
  '$or',
  '$not',
] as const;
type Operator = (typeof OPERATORS)[number];
const isOperator = (key: string): key is Operator => (OPERATORS as readonly string[]).includes(key);

/** Numbers compare with numbers and strings with strings (code-unit order); anything else does not match. */
function ordered(operand: number | string, accept: (order: number) => boolean): Matcher {
  return anyElement((v) => {
    if (typeof v !== typeof operand) return false;
    const a = v as number | string;
    return accept(a < operand ? -1 : a > operand ? 1 : 0);
  });
}

class JsonFilterCompiler {
  readonly errors: FilterError[] = [];

  private fail(at: Path, message: string): Matcher {
    this.errors.push({ path: ['filter', ...at].join('.'), at, message });
    return () => false;
  }

  /** Any filter value: a plain value (equality), an array (contains all), or an object (each key). */
  node(filter: unknown, at: Path): Matcher {
    if (isPrimitive(filter)) return anyElement((v) => v === filter);
    if (typeof filter === 'number') return this.fail(at, 'must be a finite number');
    if (Array.isArray(filter)) {
      const each = filter.map((item, i) => this.node(item, [...at, i]));
      // Hookdeck's rule: the event's array contains every value of the filter's array.
      return (value) => Array.isArray(value) && each.every((m) => value.some((v) => m(v)));
    }
    if (isPlainObject(filter)) return this.object(filter, at);
    return this.fail(at, 'must be JSON');
  }

  private object(filter: Record<string, unknown>, at: Path): Matcher {
    const fields: { key: string; match: Matcher }[] = [];
    const operators: Matcher[] = [];
    for (const [key, operand] of Object.entries(filter)) {
      if (key.startsWith('$')) {
        operators.push(
          isOperator(key)
            ? this.operator(key, operand, [...at, key])
            : this.fail([...at, key], `unknown operator; use one of ${OPERATORS.join(' ')}`),
        );
      } else {
        fields.push({ key, match: this.node(operand, [...at, key]) });
      }
    }
    const own = (value: unknown) => {
      for (const op of operators) if (!op(value)) return false;
      if (fields.length === 0) return true;
      if (!isPlainObject(value)) return false;
      for (const f of fields) if (!f.match(Object.hasOwn(value, f.key) ? value[f.key] : undefined)) return false;
      return true;
    };
    if (fields.length === 0) return own;
    // An object filter against an array of objects: some element matches the whole object.
    return (value) => (Array.isArray(value) ? value.some(own) : own(value));
  }

  private primitive(operand: unknown, at: Path): operand is Primitive {
    if (isPrimitive(operand)) return true;
    this.fail(at, 'must be a string, a finite number, a boolean or null');
    return false;
  }

  private list(operand: unknown, at: Path): Set<Primitive> | undefined {
    if (!Array.isArray(operand) || operand.length === 0) {
      this.fail(at, 'must be a non-empty array of plain values');
      return undefined;
    }
    operand.forEach((item, i) => this.primitive(item, [...at, i]));
    return new Set(operand as Primitive[]);
  }

  private filters(operand: unknown, at: Path): Matcher[] {
    if (!Array.isArray(operand) || operand.length === 0) {
      this.fail(at, 'must be a non-empty array of filters');
      return [];
    }
    return operand.map((item, i) => this.node(item, [...at, i]));
  }

  private operator(op: Operator, operand: unknown, at: Path): Matcher {
    switch (op) {
      case '$eq':
        return this.primitive(operand, at) ? anyElement((v) => v === operand) : () => false;
      case '$neq': {
        if (!this.primitive(operand, at)) return () => false;
        const eq = anyElement((v) => v === operand);
        return (value) => !eq(value);
      }
      case '$in':
      case '$nin': {
        const set = this.list(operand, at);
        if (!set) return () => false;
        // Membership by equality only: "ab" is not in ["abc"] (Outpost's $in also matches substrings).
        const isIn = anyElement((v) => isPrimitive(v) && set.has(v));
        return op === '$in' ? isIn : (value) => !isIn(value);
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        if (!(typeof operand === 'string' || (typeof operand === 'number' && Number.isFinite(operand)))) {
          return this.fail(at, 'must be a number or a string');
        }
        const accept = {
          $gt: (o: number) => o > 0,
          $gte: (o: number) => o >= 0,
          $lt: (o: number) => o < 0,
          $lte: (o: number) => o <= 0,
        }[op];
        return ordered(operand, accept);
      }
      case '$startsWith':
      case '$endsWith': {
        if (typeof operand !== 'string') return this.fail(at, 'must be a string');
        return op === '$startsWith'
          ? anyElement((v) => typeof v === 'string' && v.startsWith(operand))
          : anyElement((v) => typeof v === 'string' && v.endsWith(operand));
      }
      case '$exist':
        if (typeof operand !== 'boolean') return this.fail(at, 'must be true or false');
        return (value) => (value !== undefined) === operand;
      case '$and': {
        const all = this.filters(operand, at);
        return (value) => all.every((m) => m(value));
      }
      case '$or': {
        const any = this.filters(operand, at);
        return (value) => any.some((m) => m(value));
      }
      case '$not': {
        if (!isPlainObject(operand) && !isPrimitive(operand) && !Array.isArray(operand)) {
          return this.fail(at, 'must be a filter');
        }
        const inner = this.node(operand, at);
        return (value) => !inner(value);
      }
    }
  }
}

/** Compiles a filter value (any level of a JSON filter) into a matcher, or names every bad part. */
export function compileJsonMatcher(
  filter: unknown,
  at: Path = [],
): { ok: true; match: Matcher } | { ok: false; errors: FilterError[] } {
  const compiler = new JsonFilterCompiler();
  const match = compiler.node(filter, at);
  return compiler.errors.length > 0 ? { ok: false, errors: compiler.errors } : { ok: true, match };
}
