import { AppError } from '@relay/core';
import type { z } from 'zod';

interface FieldError {
  field: string;
  message: string;
}

const NUL_MESSAGE = 'must not contain NUL (\\u0000) characters';

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
};
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

/** The schema under optional/nullable/default/pipe/lazy wrappers. */
function unwrap(schema: z.ZodType): Def {
  let def = defOf(schema);
  for (;;) {
    if (WRAPPERS.has(def.type) && def.innerType) def = defOf(def.innerType);
    else if (def.type === 'pipe' && def.in) def = defOf(def.in);
    else if (def.type === 'lazy' && def.getter) def = defOf(def.getter());
    else return def;
  }
}

// A value the schema takes as opaque JSON (a webhook payload) is stored as JSON text, where a NUL is
// an escape sequence: it is never bound to a text column, so it is not checked.
const isOpaque = (schema: z.ZodType | undefined) =>
  schema !== undefined && ['unknown', 'any'].includes(unwrap(schema).type);

/** The schema of a member (object field, record value or array element); undefined: checked strictly. */
function memberOf(schema: z.ZodType | undefined, key: string | undefined): z.ZodType | undefined {
  if (schema === undefined) return undefined;
  const def = unwrap(schema);
  if (def.type === 'array') return key === undefined ? def.element : undefined;
  if (def.type === 'object' && key !== undefined) return def.shape?.[key] ?? def.catchall;
  if (def.type === 'record') return def.valueType;
  if (def.type === 'intersection') return memberOf(def.left, key) ?? memberOf(def.right, key);
  if (def.type === 'union') {
    // Opaque only where every branch that names the member takes it as opaque.
    const members = (def.options ?? []).map((o) => memberOf(o, key)).filter((m) => m !== undefined);
    return members.length > 0 && members.every(isOpaque) ? members[0] : undefined;
  }
  return undefined;
}

/**
 * Every string (and object key) holding a NUL character, by field. Postgres text cannot hold NUL, so
 * one is refused here, for every input of every operation, before it can reach a query. Iterative:
 * the input may be nested deeply.
 */
export function nulFields(schema: z.ZodType | undefined, value: unknown): FieldError[] {
  // Paths are kept as parent links and spelled out only for a refusal: copying them at every level
  // would make a deep input quadratic.
  interface Node {
    value: unknown;
    schema: z.ZodType | undefined;
    key?: string;
    parent?: Node;
  }
  const fieldOf = (node: Node, key?: string) => {
    const keys = key === undefined ? [] : [key];
    for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) keys.push(n.key);
    return { field: keys.reverse().join('.'), message: NUL_MESSAGE };
  };
  const errors: FieldError[] = [];
  const stack: Node[] = [{ value, schema }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isOpaque(node.schema)) continue;
    if (typeof node.value === 'string') {
      if (node.value.includes('\u0000')) errors.push(fieldOf(node));
    } else if (Array.isArray(node.value)) {
      const element = memberOf(node.schema, undefined);
      node.value.forEach((item, i) => stack.push({ value: item, schema: element, key: String(i), parent: node }));
    } else if (node.value !== null && typeof node.value === 'object') {
      for (const [key, item] of Object.entries(node.value)) {
        if (key.includes('\u0000')) errors.push(fieldOf(node, key));
        else stack.push({ value: item, schema: memberOf(node.schema, key), key, parent: node });
      }
    }
  }
  return errors;
}

/** The schema of the value at a path; undefined where the path crosses a union or leaves the schema. */
function schemaAt(schema: z.ZodType | undefined, path: readonly PropertyKey[]): Def | undefined {
  for (const key of path) {
    if (schema === undefined || unwrap(schema).type === 'union') return undefined;
    schema = memberOf(schema, unwrap(schema).type === 'array' ? undefined : String(key));
  }
  return schema && unwrap(schema);
}

const valueAt = (value: unknown, path: readonly PropertyKey[]) =>
  path.reduce<unknown>((v, key) => (v !== null && typeof v === 'object' ? (v as never)[key] : undefined), value);

type Issue = z.core.$ZodIssue;

/**
 * An issue as field errors. A union of objects (POST /api/send's two modes) fails as one nameless
 * "Invalid input"; the caller needs to know which fields to give, so the input's fields pick the
 * branch: fields of several branches at once are each named as not combinable, fields of one
 * branch get that branch's errors, and no branch's fields names every field that would choose one.
 */
function issueErrors(issue: Issue, schema: z.ZodType, value: unknown, prefix: PropertyKey[] = []): FieldError[] {
  const at = [...prefix, ...issue.path];
  const field = (key?: string) => (key === undefined ? at : [...at, key]).map(String).join('.');
  const def = issue.code === 'invalid_union' ? schemaAt(schema, issue.path) : undefined;
  const options = def?.type === 'union' ? (def.options ?? []) : [];
  const input = valueAt(value, issue.path);
  const shapes = options.map((o) => unwrap(o).shape);
  if (
    issue.code !== 'invalid_union' ||
    options.length === 0 ||
    issue.errors.length !== options.length ||
    shapes.some((s) => s === undefined) ||
    input === null ||
    typeof input !== 'object' ||
    Array.isArray(input)
  ) {
    return [{ field: field(), message: issue.message }];
  }
  const keys = shapes.map((s) => Object.keys(s!));
  const own = keys.map((k) => k.filter((key) => !keys.every((other) => other.includes(key))));
  if (own.some((k) => k.length === 0)) return [{ field: field(), message: issue.message }];
  const given = own.map((k) => k.filter((key) => Object.hasOwn(input, key)));
  const used = given.flatMap((g, i) => (g.length > 0 ? [i] : []));
  const choice = `give either ${own.map((k) => k.join(' and ')).join(', or ')}`;
  if (used.length === 1) {
    const i = used[0]!;
    return issue.errors[i]!.flatMap((sub) => issueErrors(sub, options[i]!, input, at));
  }
  if (used.length === 0) return own.flat().map((key) => ({ field: field(key), message: `required: ${choice}` }));
  return used.flatMap((i) =>
    given[i]!.map((key) => {
      const others = used.filter((j) => j !== i).flatMap((j) => given[j]!);
      return { field: field(key), message: `cannot be combined with ${others.join(', ')}: ${choice}` };
    }),
  );
}

/** Parses a request part with a zod schema; every problem is reported at once, by field. */
export function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const nul = nulFields(schema, value);
  const result = schema.safeParse(value);
  if (result.success && nul.length === 0) return result.data;
  const issues = result.success ? [] : result.error.issues;
  const errors = [
    ...nul,
    ...issues
      .flatMap((issue) => issueErrors(issue, schema, value))
      .filter((e) => !nul.some((n) => n.field === e.field)),
  ];
  throw new AppError('validation_failed', 'The request is not valid.', { errors: errors.map(withPath) });
}

/**
 * Each error names its place twice: `field` (dotted, as it always has) and `path`, a JSON pointer (RFC 6901),
 * which `relay apply` maps back to a line of the YAML file it sent.
 */
const withPath = (e: FieldError) => ({
  ...e,
  path:
    e.field === ''
      ? ''
      : `/${e.field
          .split('.')
          .map((k) => k.replaceAll('~', '~0').replaceAll('/', '~1'))
          .join('/')}`,
});
