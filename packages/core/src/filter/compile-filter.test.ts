import { compileFilter, FILTER_MAX_BYTES, FILTER_MAX_DEPTH, matches } from './compile-filter';
import { CEL_LIMITS } from './cel-filter';
import type { FilterSubject } from './filter-types';

const subject: FilterSubject = {
  body: {
    type: 'invoice.paid',
    amount: 150,
    amount_text: '150',
    currency: 'usd',
    paid: true,
    note: null,
    tags: ['vip', 'eu', 'b2b'],
    counts: [1, 5, 9],
    customer: { id: 'cus_1', address: { country: 'DE' } },
    items: [
      { sku: 'A', qty: 1 },
      { sku: 'B', qty: 3 },
    ],
    created: '2026-11-20T10:00:00Z',
  },
  headers: { 'x-github-event': 'push', 'content-type': 'application/json', 'x-multi': ['a', 'b'] },
  path: '/orders/create',
  query: { env: 'prod', id: ['1', '2'] },
};

function check(filter: unknown, s: FilterSubject = subject): boolean {
  const compiled = compileFilter(filter);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
  return matches(compiled.filter, s);
}

describe('JSON filters', () => {
  test.each<[string, unknown, boolean]>([
    // plain values: equality, no coercion between numbers and strings
    ['string equality', { body: { type: 'invoice.paid' } }, true],
    ['string inequality', { body: { type: 'invoice.created' } }, false],
    ['number equality', { body: { amount: 150 } }, true],
    ['number vs string: no coercion', { body: { amount: '150' } }, false],
    ['string vs number: no coercion', { body: { amount_text: 150 } }, false],
    ['boolean', { body: { paid: true } }, true],
    ['boolean vs string', { body: { paid: 'true' } }, false],
    ['null equals null', { body: { note: null } }, true],
    ['null does not match a missing field', { body: { nothing: null } }, false],
    ['missing field never equals', { body: { nothing: 'x' } }, false],
    ['nested objects', { body: { customer: { address: { country: 'DE' } } } }, true],
    ['nested mismatch', { body: { customer: { address: { country: 'FR' } } } }, false],
    ['object filter on a scalar', { body: { type: { x: 1 } } }, false],
    ['empty object matches anything', { body: {} }, true],
    ['every key must match', { body: { type: 'invoice.paid', currency: 'eur' } }, false],
    // arrays
    ['event array contains a plain value', { body: { tags: 'eu' } }, true],
    ['event array lacks a plain value', { body: { tags: 'us' } }, false],
    ['filter array: event array contains all', { body: { tags: ['vip', 'b2b'] } }, true],
    ['filter array: one missing', { body: { tags: ['vip', 'us'] } }, false],
    ['filter array on a scalar', { body: { type: ['invoice.paid'] } }, false],
    ['object filter over an array of objects', { body: { items: { sku: 'B', qty: 3 } } }, true],
    ['object filter needs one element to match whole', { body: { items: { sku: 'A', qty: 3 } } }, false],
    // $eq $neq
    ['$eq', { body: { currency: { $eq: 'usd' } } }, true],
    ['$eq array element', { body: { tags: { $eq: 'vip' } } }, true],
    ['$neq', { body: { currency: { $neq: 'eur' } } }, true],
    ['$neq equal', { body: { currency: { $neq: 'usd' } } }, false],
    ['$neq on a missing field matches', { body: { nothing: { $neq: 'x' } } }, true],
    ['$neq on an array: no element equals', { body: { tags: { $neq: 'vip' } } }, false],
    ['$neq number vs string', { body: { amount: { $neq: '150' } } }, true],
    // $in $nin
    ['$in', { body: { currency: { $in: ['usd', 'eur'] } } }, true],
    ['$in miss', { body: { currency: { $in: ['gbp', 'eur'] } } }, false],
    ['$in is not substring', { body: { currency: { $in: ['usd-x'] } } }, false],
    ['$in substring of operand is not a match', { body: { type: { $in: ['invoice'] } } }, false],
    ['$in number vs string', { body: { amount: { $in: ['150'] } } }, false],
    ['$in with event array: any element', { body: { tags: { $in: ['us', 'eu'] } } }, true],
    ['$in on a missing field', { body: { nothing: { $in: ['x'] } } }, false],
    ['$nin', { body: { currency: { $nin: ['gbp', 'eur'] } } }, true],
    ['$nin hit', { body: { currency: { $nin: ['usd'] } } }, false],
    ['$nin on a missing field', { body: { nothing: { $nin: ['x'] } } }, true],
    ['$nin with event array', { body: { tags: { $nin: ['eu'] } } }, false],
    // ordering
    ['$gt', { body: { amount: { $gt: 100 } } }, true],
    ['$gt equal', { body: { amount: { $gt: 150 } } }, false],
    ['$gte equal', { body: { amount: { $gte: 150 } } }, true],
    ['$lt', { body: { amount: { $lt: 200 } } }, true],
    ['$lt miss', { body: { amount: { $lt: 150 } } }, false],
    ['$lte equal', { body: { amount: { $lte: 150 } } }, true],
    ['range', { body: { amount: { $gt: 100, $lte: 150 } } }, true],
    ['range miss', { body: { amount: { $gt: 100, $lt: 120 } } }, false],
    ['$gt number vs string field', { body: { amount_text: { $gt: 100 } } }, false],
    ['$gt string vs number field', { body: { amount: { $gt: '100' } } }, false],
    ['$gt strings compare by code unit (ISO dates)', { body: { created: { $gt: '2026-11-01' } } }, true],
    ['$lt strings', { body: { created: { $lt: '2026-11-01' } } }, false],
    ['$gt on an array: any element', { body: { counts: { $gt: 8 } } }, true],
    ['$gt on a missing field', { body: { nothing: { $gt: 0 } } }, false],
    ['$gt on null', { body: { note: { $gt: 0 } } }, false],
    // strings
    ['$startsWith', { body: { type: { $startsWith: 'invoice.' } } }, true],
    ['$startsWith miss', { body: { type: { $startsWith: 'customer.' } } }, false],
    ['$startsWith on a number', { body: { amount: { $startsWith: '1' } } }, false],
    ['$endsWith', { body: { type: { $endsWith: '.paid' } } }, true],
    ['$endsWith miss', { body: { type: { $endsWith: '.failed' } } }, false],
    ['$endsWith on an array', { body: { tags: { $endsWith: 'ip' } } }, true],
    // $exist
    ['$exist true', { body: { customer: { $exist: true } } }, true],
    ['$exist true on null: present', { body: { note: { $exist: true } } }, true],
    ['$exist true on missing', { body: { nothing: { $exist: true } } }, false],
    ['$exist false on missing', { body: { nothing: { $exist: false } } }, true],
    ['$exist false on present', { body: { type: { $exist: false } } }, false],
    ['$exist on a path through a scalar', { body: { type: { deeper: { $exist: false } } } }, false],
    // logic
    ['$or', { body: { $or: [{ type: 'x' }, { currency: 'usd' }] } }, true],
    ['$or none', { body: { $or: [{ type: 'x' }, { currency: 'eur' }] } }, false],
    ['$and', { body: { $and: [{ type: 'invoice.paid' }, { amount: { $gt: 1 } }] } }, true],
    ['$and one fails', { body: { $and: [{ type: 'invoice.paid' }, { amount: { $gt: 1000 } }] } }, false],
    ['$not', { body: { type: { $not: { $startsWith: 'customer.' } } } }, true],
    ['$not of a plain value', { body: { currency: { $not: 'usd' } } }, false],
    ['$not of an object', { body: { $not: { currency: 'eur' } } }, true],
    ['top-level $or across fields', { $or: [{ path: '/nope' }, { headers: { 'x-github-event': 'push' } }] }, true],
    ['top-level $not', { $not: { body: { paid: true } } }, false],
    // headers, path, query
    ['header (lower-cased name)', { headers: { 'x-github-event': 'push' } }, true],
    ['header name in any case', { headers: { 'X-GitHub-Event': 'push' } }, true],
    ['repeated header: any value', { headers: { 'x-multi': 'b' } }, true],
    ['missing header', { headers: { 'x-nope': { $exist: true } } }, false],
    ['path', { path: '/orders/create' }, true],
    ['path prefix', { path: { $startsWith: '/orders' } }, true],
    ['query', { query: { env: 'prod' } }, true],
    ['repeated query key: contains', { query: { id: '2' } }, true],
    ['repeated query key: contains all', { query: { id: ['1', '2'] } }, true],
    ['query values are strings', { query: { id: 1 } }, false],
    [
      'everything at once',
      { body: { type: 'invoice.paid' }, path: { $startsWith: '/orders' }, query: { env: 'prod' } },
      true,
    ],
    ['empty filter matches everything', {}, true],
  ])('%s', (_name, filter, expected) => {
    expect(check(filter)).toBe(expected);
  });

  test('a text body is a string', () => {
    const text = { ...subject, body: 'hello world' };
    expect(check({ body: { $startsWith: 'hello' } }, text)).toBe(true);
    expect(check({ body: { type: 'x' } }, text)).toBe(false);
  });
});

describe('invalid filters name the bad part', () => {
  test.each<[string, unknown, string]>([
    ['unknown operator', { body: { amount: { $gtt: 5 } } }, 'filter.body.amount.$gtt'],
    ['unknown top-level field', { payload: { a: 1 } }, 'filter.payload'],
    ['$in needs an array', { body: { a: { $in: 'x' } } }, 'filter.body.a.$in'],
    ['$in needs plain values', { body: { a: { $in: ['x', { y: 1 }] } } }, 'filter.body.a.$in.1'],
    ['$in empty', { body: { a: { $in: [] } } }, 'filter.body.a.$in'],
    ['$gt needs a number or string', { body: { a: { $gt: true } } }, 'filter.body.a.$gt'],
    ['$startsWith needs a string', { body: { a: { $startsWith: 1 } } }, 'filter.body.a.$startsWith'],
    ['$exist needs a boolean', { body: { a: { $exist: 'yes' } } }, 'filter.body.a.$exist'],
    ['$or needs filters', { body: { $or: {} } }, 'filter.body.$or'],
    [
      'bad operator inside $or',
      { $or: [{ body: { a: 1 } }, { body: { a: { $regex: 'x' } } }] },
      'filter.$or.1.body.a.$regex',
    ],
    ['$eq needs a plain value', { body: { a: { $eq: [1] } } }, 'filter.body.a.$eq'],
    ['not an object', 'type == 1', 'filter'],
    ['an array', [{ body: 1 }], 'filter'],
    ['cel with other fields', { cel: 'true', body: {} }, 'filter.body'],
    ['NUL', { body: { a: 'x\u0000' } }, 'filter'],
  ])('%s', (_name, filter, path) => {
    const compiled = compileFilter(filter);
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.errors.map((e) => e.path)).toContain(path);
  });

  test('every bad part is named at once', () => {
    const compiled = compileFilter({ body: { a: { $gtt: 1 }, b: { $in: 3 } }, extra: 1 });
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) {
      expect(compiled.errors.map((e) => e.path).sort()).toEqual([
        'filter.body.a.$gtt',
        'filter.body.b.$in',
        'filter.extra',
      ]);
      expect(compiled.errors.find((e) => e.path === 'filter.body.a.$gtt')?.at).toEqual(['body', 'a', '$gtt']);
    }
  });

  test(`depth ${FILTER_MAX_DEPTH} is allowed, deeper is refused`, () => {
    const nest = (levels: number) => {
      let v: unknown = 1;
      for (let i = 0; i < levels - 1; i++) v = { a: v };
      return { body: v };
    };
    expect(compileFilter(nest(FILTER_MAX_DEPTH - 1)).ok).toBe(true);
    const deep = compileFilter(nest(FILTER_MAX_DEPTH + 1));
    expect(deep).toMatchObject({ ok: false, errors: [{ path: 'filter', message: expect.stringContaining('deeper') }] });
    // Far too deep to serialize recursively: refused without a stack overflow.
    expect(compileFilter(nest(100_000)).ok).toBe(false);
  });

  test(`larger than ${FILTER_MAX_BYTES} bytes is refused`, () => {
    const big = { body: { a: { $in: Array.from({ length: 3000 }, (_, i) => `value-${i}`) } } };
    expect(compileFilter(big)).toMatchObject({
      ok: false,
      errors: [{ path: 'filter', message: expect.stringContaining('KB') }],
    });
  });
});

describe('CEL filters', () => {
  test.each<[string, boolean]>([
    ['body.type == "invoice.paid"', true],
    ['body.amount > 100', true],
    ['body.amount > 100.5 && body.currency == "usd"', true],
    ['body.type.startsWith("customer.")', false],
    ['headers["x-github-event"] == "push"', true],
    ['path.startsWith("/orders")', true],
    ['query.env == "prod"', true],
    ['"id" in query && size(query.id) == 2', true],
    ['has(body.customer.address) && body.customer.address.country in ["DE", "AT"]', true],
    ['body.items.exists(i, i.qty > 2)', true],
    ['body.items.all(i, i.qty > 2)', false],
    ['body.tags.exists(t, t == "vip")', true],
    // a runtime error is no match
    ['body.missing == 1', false],
    ['body.amount / 0 > 1', false],
    ['body.type > 1', false],
    // not a bool at run time: no match
    ['body.type', false],
  ])('%s', (cel, expected) => {
    expect(check({ cel })).toBe(expected);
  });

  test.each<[string, string, RegExp]>([
    ['syntax error', 'body.type ==', /./],
    ['unknown variable', 'payload.type == "x"', /payload/i],
    ['not a bool', '1 + 2', /bool/],
    ['type error', '1 + "a"', /overload/],
    ['regex refused', 'body.type.matches("^(a+)+$")', /regular expression/],
    ['nested macro refused', 'body.items.all(i, body.tags.exists(t, t == i.sku))', /inside another macro/],
    ['empty', '  ', /non-empty/],
    ['not a string', 42 as unknown as string, /non-empty/],
  ])('%s is refused at filter.cel', (_name, cel, message) => {
    const compiled = compileFilter({ cel });
    expect(compiled).toMatchObject({
      ok: false,
      errors: [{ path: 'filter.cel', message: expect.stringMatching(message) }],
    });
  });

  test(`the AST is limited to ${CEL_LIMITS.maxAstNodes} nodes and depth ${CEL_LIMITS.maxDepth}`, () => {
    const wide = Array.from({ length: 400 }, (_, i) => `body.a${i} == 1`).join(' || ');
    expect(compileFilter({ cel: wide })).toMatchObject({
      ok: false,
      errors: [{ message: expect.stringMatching(/maxAstNodes/) }],
    });
    let deep = '1';
    for (let i = 0; i < CEL_LIMITS.maxDepth + 4; i++) deep = `(${deep} + 1)`;
    expect(compileFilter({ cel: `${deep} == 2` })).toMatchObject({
      ok: false,
      errors: [{ message: expect.stringMatching(/maxDepth/) }],
    });
  });
});
