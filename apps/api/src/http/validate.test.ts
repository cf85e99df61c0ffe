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

  it('names the fields of a union of objects instead of one nameless "Invalid input"', () => {
    const errorsOf = (value: unknown) => {
      try {
        validate(sendSchema, value);
      } catch (err) {
        // The JSON pointer beside each field has a test of its own, below.
        const { errors } = (err as { details: { errors: { field: string; path: string; message: string }[] } }).details;
        return errors.map(({ field, message }) => ({ field, message }));
      }
      return [];
    };
    const id = '00000000-0000-7000-8000-000000000001';
    const both = errorsOf({ provider_id: id, source: 'x', target_url: '', body: {} });
    const choice = 'give either provider_id, or source and target_url';
    expect(both).toEqual([
      { field: 'provider_id', message: `cannot be combined with source, target_url: ${choice}` },
      { field: 'source', message: `cannot be combined with provider_id: ${choice}` },
      { field: 'target_url', message: `cannot be combined with provider_id: ${choice}` },
    ]);
    // Fields of one mode: that mode's own errors, by field.
    expect(errorsOf({ provider_id: 'nope', body: {} }).map((e) => e.field)).toEqual(['provider_id']);
    expect(errorsOf({ source: 'x', body: {} }).map((e) => e.field)).toEqual(['target_url']);
    expect(errorsOf({ source: 'x', target_url: '', body: {}, extra: 1 })).toEqual([
      { field: '', message: 'Unrecognized key: "extra"' },
    ]);
    // No mode at all: every field that would choose one.
    expect(errorsOf({ body: {} })).toEqual(
      ['provider_id', 'source', 'target_url'].map((field) => ({ field, message: `required: ${choice}` })),
    );
    // A union nested in an object is named under its path.
    const nested = z.object({ inner: z.union([z.strictObject({ a: z.string() }), z.strictObject({ b: z.number() })]) });
    expect(fieldsOf(() => validate(nested, { inner: { a: 'x', b: 1 } }))).toEqual(['inner.a', 'inner.b']);
    expect(fieldsOf(() => validate(nested, { inner: { b: 'x' } }))).toEqual(['inner.b']);
  });

  it('walks deeply nested input without recursion', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nulFields(undefined, deep)).toHaveLength(1);
  });

  it('names each field as a JSON pointer too (relay apply maps it to a line of its file)', () => {
    const schema = z.object({ rules: z.array(z.object({ 'a/b': z.string(), name: z.string() })) });
    try {
      validate(schema, {
        rules: [
          { 'a/b': 'x', name: 'ok' },
          { 'a/b': 1, name: 'ok' },
        ],
      });
      throw new Error('accepted');
    } catch (err) {
      expect((err as { details: { errors: unknown[] } }).details.errors).toEqual([
        { field: 'rules.1.a/b', path: '/rules/1/a~1b', message: expect.any(String) as unknown },
      ]);
    }
  });
});
