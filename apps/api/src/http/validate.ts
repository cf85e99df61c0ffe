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

/** Parses a request part with a zod schema; every problem is reported at once, by field. */
export function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const nul = nulFields(schema, value);
  const result = schema.safeParse(value);
  if (result.success && nul.length === 0) return result.data;
  const issues = result.success ? [] : result.error.issues;
  const errors = [
    ...nul,
    ...issues
      .map((issue) => ({ field: issue.path.join('.'), message: issue.message }))
      .filter((e) => !nul.some((n) => n.field === e.field)),
  ];
  throw new AppError('validation_failed', 'The request is not valid.', { errors });
}
