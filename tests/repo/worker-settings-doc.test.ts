import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseWorkerConfig } from '../../apps/delivery-worker/src/config';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

// A default changed in the schema must change where operators read it: .env.example and docs/configuration.md.
describe("the worker's numeric defaults", () => {
  const defaults = Object.entries(parseWorkerConfig({})).filter(
    (entry): entry is [string, number] => typeof entry[1] === 'number',
  );
  const example = new Map(
    read('.env.example')
      .split('\n')
      .map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
  const documented = new Map(
    read('docs/configuration.md')
      .split('\n')
      .map((line) => /^\| `([A-Z][A-Z0-9_]*)` \| [^|]*worker[^|]* \| `(\d+)` \|/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );

  it('covers the search indexing settings', () => {
    const names = defaults.map(([name]) => name);
    expect(names).toEqual(expect.arrayContaining(['SEARCH_INDEX_INTERVAL_MS', 'SEARCH_INDEX_BATCH']));
  });

  it('are the values .env.example sets', () => {
    // An empty value there means unset, which is 0 (off) for the retention settings.
    const differ = defaults.filter(
      ([name, value]) => example.has(name) && (example.get(name) || '0') !== String(value),
    );
    expect(differ).toEqual([]);
    expect(example.get('SEARCH_INDEX_BATCH')).toBe('200');
  });

  it('are the defaults docs/configuration.md states', () => {
    const differ = defaults.filter(([name, value]) => documented.has(name) && documented.get(name) !== String(value));
    expect(differ).toEqual([]);
    expect(documented.get('SEARCH_INDEX_INTERVAL_MS')).toBe('200');
  });
});
