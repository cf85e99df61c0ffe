import { sendSchema, bulkSelectionSchema } from '@relay/contracts';
import { z } from 'zod';
import { nulFields, validate } from './validate';

const fieldsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return ((err as { details: { errors: { field: string }[] } }).details.errors ?? []).map((e) => e.field);
  }
  return [];
};

describe('validate', () => {
  it('refuses NUL in any string or key, nested or in arrays, naming each field', () => {
    const schema = z.object({ a: z.string(), list: z.array(z.string()), free: z.record(z.string(), z.string()) });
    const value = { a: 'x\u0000', list: ['ok', '\u0000'], free: { 'k\u0000': 'v', k: 'v\u0000' } };
    expect(fieldsOf(() => validate(schema, value)).sort()).toEqual(['a', 'free.k', 'free.k\u0000', 'list.1']);
    expect(fieldsOf(() => validate(bulkSelectionSchema, { filter: { search: '\u0000' } }))).toContain('filter.search');
  });

  it('leaves opaque payloads alone: a NUL there is stored as the JSON escape', () => {
    const body = { source: 'a', target_url: '', body: { text: 'nul \u0000 inside', deep: [['\u0000']] } };
    expect(validate(sendSchema, body)).toEqual(body);
    expect(fieldsOf(() => validate(sendSchema, { ...body, source: 'a\u0000' }))).toContain('source');
  });

  it('walks deeply nested input without recursion', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nulFields(undefined, deep)).toHaveLength(1);
  });
});
