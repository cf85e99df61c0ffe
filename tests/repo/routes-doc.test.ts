import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '@relay/core';
import { ALL_OPERATIONS } from '../../apps/api/src/composition/catalog';

// Every "METHOD /path" the README, docs/ and the error messages name is a route the api serves: a
// message that sends a client to /api/rules/{id}/resume (the route is /rules/{id}/resume) is a dead end.
const ROOT = path.resolve(__dirname, '../..');
const METHOD = 'GET|POST|PUT|PATCH|DELETE';
// "POST/PATCH /rules" names either method; a path ends at a character no route spells.
const MENTION = new RegExp(`\\b((?:${METHOD})(?:/(?:${METHOD}))*) (/[\\w{}:.\\-/…]*)`, 'g');

// A declared `:id` (and the ingest's `:source`) stands for any one segment, such as a doc's `{id}`.
const served = ALL_OPERATIONS.map((op) => ({
  method: op.method.toUpperCase(),
  path: new RegExp(`^${op.path.replace(/:\w+/g, '[^/]+')}$`),
}));
const isServed = (methods: string, route: string) => {
  const bare = route.replace(/[.,:]+$/, '').replace(/(.)\/$/, '$1');
  return methods.split('/').some((m) => served.some((op) => op.method === m && op.path.test(bare)));
};

function markdown(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdown(file);
    return entry.name.endsWith('.md') ? [file] : [];
  });
}

describe('routes named in the docs and in error messages', () => {
  it('are routes the api serves', () => {
    const files = [path.join(ROOT, 'README.md'), ...markdown(path.join(ROOT, 'docs'))];
    const texts = [
      ...files.map((file) => ({ where: path.relative(ROOT, file), text: readFileSync(file, 'utf8') })),
      ...Object.entries(ERROR_CODES).map(([code, text]) => ({ where: `error ${code}`, text })),
    ];
    const unknown = texts.flatMap(({ where, text }) =>
      [...text.matchAll(MENTION)].filter((m) => !isServed(m[1]!, m[2]!)).map((m) => `${where}: ${m[1]} ${m[2]}`),
    );
    expect(unknown).toEqual([]);
  });
});
