import { randomUUID } from 'node:crypto';
import { createOperatorRepository } from '@relay/db';
import type supertest from 'supertest';
import type { AnyOperation } from '../../apps/api/src/http/operation';
import { ALL_OPERATIONS } from '../../apps/api/src/composition/catalog';
import type { ApiServices } from '../../apps/api/src/composition/services';
import { basicAuth, FAST_HASH_ENV, startPipeline, testPasswords, userCredential, type Pipeline } from './harness';

// A generated walk over every operation of the catalog: every string and number input (path
// params, query, body — nested fields and array elements too) gets NUL characters, over-long
// strings, out-of-range numbers and wrong types, one field at a time, with every other field valid.
// Each answer must be a 4xx problem document; query and body refusals must name the field.

type Op = AnyOperation<ApiServices>;
/** A zod schema (the root package does not depend on zod itself). */
type ZodType = NonNullable<Op['body']>;
type Where = 'params' | 'query' | 'body';
type Def = {
  type: string;
  innerType?: ZodType;
  in?: ZodType;
  shape?: Record<string, ZodType>;
  element?: ZodType;
  options?: ZodType[];
  entries?: Record<string, string>;
  format?: string;
  values?: unknown[];
};
const defOf = (s: ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
const OPTIONAL = new Set(['optional', 'default', 'prefault']);
const WRAPPERS = new Set([...OPTIONAL, 'nullable', 'readonly', 'catch', 'nonoptional']);
function unwrap(s: ZodType): { def: Def; schema: ZodType } {
  let schema = s;
  for (;;) {
    const def = defOf(schema);
    if (WRAPPERS.has(def.type) && def.innerType) schema = def.innerType;
    else if (def.type === 'pipe' && def.in) schema = def.in;
    else return { def, schema };
  }
}
const isOptional = (s: ZodType) => OPTIONAL.has(defOf(s).type);

interface Leaf {
  path: string[];
  kind: 'string' | 'datetime' | 'number' | 'record' | 'other';
  /** The top-level union branch the leaf belongs to (bodies such as /api/send are unions). */
  branch: ZodType;
}

function leavesOf(root: ZodType): Leaf[] {
  const leaves: Leaf[] = [];
  const visit = (s: ZodType, path: string[], branch: ZodType) => {
    const { def } = unwrap(s);
    if (def.type === 'object') for (const [k, v] of Object.entries(def.shape!)) visit(v, [...path, k], branch);
    else if (def.type === 'union') for (const o of def.options!) visit(o, path, path.length === 0 ? o : branch);
    else if (def.type === 'array') {
      leaves.push({ path, kind: 'other', branch });
      visit(def.element!, [...path, '0'], branch);
    } else if (def.type === 'record') leaves.push({ path, kind: 'record', branch });
    else if (def.type === 'unknown' || def.type === 'any') return;
    else if (def.type === 'string')
      leaves.push({ path, kind: def.format === 'datetime' ? 'datetime' : 'string', branch });
    else leaves.push({ path, kind: def.type === 'number' ? 'number' : 'other', branch });
  };
  visit(root, [], root);
  return leaves;
}

const STRING_SAMPLES = () => [
  'https://example.com/walk',
  'walk-1',
  'Walk-Passw0rd!x',
  'walk@example.com',
  randomUUID(),
  new Date(Date.now() + 86_400_000).toISOString(),
  // A path on the relay (return_to).
  '/app/walk',
  // An e-mail domain (an identity provider's allowed_domains).
  'example.com',
  // A transform (rules and destinations, transform-test): code that registers its handler.
  "addHandler('transform', (request) => request);",
];

/**
 * An object its refinements refuse (rule options: "exactly one of preset, header and json_pointer", "the hmac
 * preset only"): another value of an enum field, or one more optional field, usually makes it valid.
 */
function repaired(schema: ZodType, shape: Record<string, ZodType>, out: Record<string, unknown>, keep?: string) {
  const changes = (from: Record<string, unknown>) =>
    Object.entries(shape).flatMap(([k, v]) => {
      const { def } = unwrap(v);
      const values = k !== keep && def.type === 'enum' ? Object.values(def.entries!) : [];
      return [...values.map((e) => ({ ...from, [k]: e })), ...(k in from ? [] : [{ ...from, [k]: sample(v) }])];
    });
  // One change, then two (`hmac` needs a header as well).
  const once = changes(out);
  return [...once, ...once.flatMap(changes)].find((t) => schema.safeParse(t).success) ?? out;
}

/** A valid value for a schema: required fields only, plus the fields on `include`. */
function sample(s: ZodType, include: string[] = []): unknown {
  const { def, schema } = unwrap(s);
  switch (def.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(def.shape!)) {
        if (isOptional(v) && include[0] !== k) continue;
        out[k] = sample(v, include[0] === k ? include.slice(1) : []);
      }
      return schema.safeParse(out).success ? out : repaired(schema, def.shape!, out, include[0]);
    }
    case 'union':
      return sample(def.options![0]!, include);
    case 'array':
      return [sample(def.element!, include.slice(1))];
    case 'string':
      return STRING_SAMPLES().find((c) => schema.safeParse(c).success) ?? 'walk';
    case 'number':
      return [1, 0, 10, 60, 3_600].find((c) => schema.safeParse(c).success) ?? 1;
    case 'boolean':
      return true;
    case 'enum':
      return Object.values(def.entries!)[0];
    case 'literal':
      return def.values![0];
    default:
      return {};
  }
}

const setAt = (target: unknown, path: string[], value: unknown): unknown => {
  if (path.length === 0) return value;
  const copy = (Array.isArray(target) ? [...target] : { ...(target as object) }) as Record<string, unknown>;
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), value);
  return copy;
};

const LONG = 'x'.repeat(3_000);
// Year 0 and past 9999 (after the offset) are valid ISO 8601 but cannot be stored or computed with.
const BAD_DATES = ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59-14:00', '2026-02-30T00:00:00Z'];
const BAD_BODY_STRINGS = ['\u0000', 'walk\u0000nul', LONG, 12_345, true, {}, []];
const BAD_QUERY_STRINGS = ['\u0000', 'walk\u0000nul', LONG, ['a', 'b']];
const BAD: Record<Where, Record<Leaf['kind'], unknown[]>> = {
  body: {
    string: BAD_BODY_STRINGS,
    datetime: [...BAD_BODY_STRINGS, ...BAD_DATES],
    number: [2_147_483_648, -2_147_483_649, 1e300, 1.5, 'x', true, {}, []],
    other: ['\u0000', 12_345, {}],
    // A map of names (a rule's outbound_headers.set): {} is a valid empty map, a bad name is not.
    record: ['\u0000', 12_345, [], { 'bad name': 'x' }, { 'x-walk': 12_345 }],
  },
  query: {
    string: BAD_QUERY_STRINGS,
    datetime: [...BAD_QUERY_STRINGS, ...BAD_DATES],
    number: ['2147483648', '-2147483649', '1e300', '1.5', 'x', '\u0000', ['1', '2']],
    other: ['\u0000', ['a', 'b']],
    record: ['\u0000'],
  },
  params: {
    string: ['\u0000', 'walk\u0000nul', LONG],
    datetime: ['\u0000'],
    number: ['\u0000', '2147483648'],
    record: ['\u0000'],
    other: ['\u0000'],
  },
};

interface Probe {
  op: Op;
  where: Where | 'root';
  field: string;
  value: unknown;
  params: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

function probesOf(op: Op): Probe[] {
  const params = op.params ? (sample(op.params) as Record<string, string>) : {};
  const probes: Probe[] = [];
  for (const where of ['params', 'query', 'body'] as const) {
    const schema = op[where];
    if (!schema) continue;
    for (const leaf of leavesOf(schema)) {
      const base = sample(leaf.branch, leaf.path);
      // Every other field is valid, so the refusal can only be about this one.
      expect({ op: op.path, field: leaf.path.join('.'), valid: schema.safeParse(base).success }).toMatchObject({
        valid: true,
      });
      for (const value of BAD[where][leaf.kind]) {
        const input = setAt(base, leaf.path, value) as Record<string, unknown>;
        probes.push({
          op,
          where,
          field: leaf.path.join('.'),
          value,
          params: where === 'params' ? (input as Record<string, string>) : params,
          ...(where === 'query' ? { query: input } : where === 'body' ? { body: input } : {}),
        });
      }
    }
  }
  if (op.body)
    for (const body of ['[]', '"x"', '1', 'null', '['.repeat(1_900) + ']'.repeat(1_900)])
      probes.push({ op, where: 'root', field: '', value: body, params, body });
  return probes;
}

let pipeline: Pipeline;
let admin: string;
let operatorCookie: string;

beforeAll(async () => {
  pipeline = await startPipeline({ api: { ...FAST_HASH_ENV, SESSION_SECRET: 's' }, worker: false });
  admin = (await userCredential(pipeline)).authorization;
  const password = 'walk-operator-password-1';
  await createOperatorRepository(pipeline.store.prisma).bootstrap('walk-op', await testPasswords.hash(password));
  const login = await pipeline.http.post('/api/auth/login').send({ username: 'walk-op', password }).expect(200);
  operatorCookie = ([] as string[])
    .concat(login.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('relay_session='))!
    .split(';')[0]!;
});
afterAll(() => pipeline.close());

function requestOf(probe: Probe): supertest.Test {
  const path = probe.op.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(probe.params[name] ?? ''));
  let req = pipeline.http[probe.op.method](path);
  if (probe.op.access === 'operator') req = req.set('cookie', operatorCookie).set('sec-fetch-site', 'same-origin');
  else if (probe.op.access !== 'public') req = req.set('authorization', admin);
  if (probe.query) req = req.query(probe.query as Record<string, string>);
  if (probe.where === 'root') return req.set('content-type', 'application/json').send(probe.body as string);
  if (probe.op.rawBody) return req.set('content-type', 'application/json').send('{}');
  return probe.body === undefined ? req : req.send(probe.body as object);
}

function verdict(probe: Probe, res: supertest.Response): string | undefined {
  const what = `${probe.op.method.toUpperCase()} ${probe.op.path} ${probe.where} ${probe.field}=${JSON.stringify(probe.value).slice(0, 40)}`;
  if (res.status < 400 || res.status > 499) return `${what}: ${res.status}`;
  if (!String(res.headers['content-type']).startsWith('application/problem+json') || typeof res.body.code !== 'string')
    return `${what}: not a problem document`;
  if (probe.where !== 'query' && probe.where !== 'body') return undefined;
  if (res.body.code !== 'validation_failed') return `${what}: ${res.body.code}`;
  const fields = (res.body.errors as { field: string }[]).map((e) => e.field);
  // A union body (POST /api/send, bulk actions) fails as a whole when no branch matches; a map names the entry.
  const named = (f: string) => f === probe.field || f === '' || f.startsWith(`${probe.field}.`);
  return fields.some(named) ? undefined : `${what}: errors name ${fields.join(', ')}`;
}

describe('bad input on every operation', () => {
  it('answers every NUL, over-long, out-of-range and wrongly typed input with a 4xx problem naming the field', async () => {
    const probes = ALL_OPERATIONS.flatMap(probesOf);
    // Login username, token name, rule description, platform and event search are among them.
    const covered = new Set(probes.map((p) => `${p.op.method.toUpperCase()} ${p.op.path} ${p.field}`));
    for (const key of [
      'POST /api/auth/login username',
      'POST /api/auth/tokens name',
      'POST /rules description',
      'GET /api/platform/organizations search',
      'GET /events search',
      'PATCH /api/platform/organizations/:id/subscription monthly_event_limit',
    ])
      expect(covered).toContain(key);
    const failures: string[] = [];
    for (let i = 0; i < probes.length; i += 16) {
      const batch = probes.slice(i, i + 16);
      const answers = await Promise.all(batch.map(requestOf));
      batch.forEach((probe, k) => {
        const failure = verdict(probe, answers[k]!);
        if (failure) failures.push(failure);
      });
    }
    expect(failures).toEqual([]);
    expect(probes.length).toBeGreaterThan(500);
  }, 120_000);

  it('refuses NUL and over-long HTTP Basic credentials as the login body does', async () => {
    for (const [user, password] of [
      ['walk\u0000nul', 'pw'],
      ['walk', 'pw\u0000'],
      ['x'.repeat(3_000), 'pw'],
    ] as const) {
      const res = await pipeline.http.get('/events').set('authorization', basicAuth(user, password));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  it('answers a path that is not valid percent-encoding with 404, on the API and on ingest', async () => {
    for (const path of ['/events/%ff', '/rules/%E0%A4%A', '/%ff', '/github%ff/x']) {
      const res = await pipeline.http.post(path).set('authorization', admin).set('content-type', 'application/json');
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 404, code: 'not_found' });
    }
    const get = await pipeline.http.get('/events/%ff').set('authorization', admin);
    expect(get.status).toBe(404);
  });

  it('refuses NUL in an ingest source path with 400', async () => {
    for (const path of ['/%00', '/walk%00nul', '/a%00/b']) {
      const res = await pipeline.http.post(path).set('content-type', 'application/json').send('{}');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_source');
    }
  });
});
