import { addSearchKeys, termSearchKeys } from './search-trigrams';

const keysOf = (text: string) => addSearchKeys(text, new Set());
const holds = (text: string, term: string) => termSearchKeys(term).every((k) => keysOf(text).has(k));

describe('search keys', () => {
  it('a text holds every key of each of its substrings, in any case', () => {
    const text = '{"pusher":{"name":"Octo-Cat"},"ref":"refs/heads/Main"}';
    for (const term of ['octo-cat', 'OCTO', 'pusher', 'heads/main', '"ref":"']) expect(holds(text, term)).toBe(true);
  });

  it('a term the text lacks is very unlikely to have all its keys', () => {
    const text = 'chore: routine update 1234 of the octo-common organization';
    expect(holds(text, 'quetzalcoatl')).toBe(false);
    expect(holds(text, 'octo-uncommon')).toBe(false);
  });

  it('a chunk set is the union of its texts', () => {
    const chunk = addSearchKeys('second event body', addSearchKeys('first event body', new Set()));
    expect(termSearchKeys('first').every((k) => chunk.has(k))).toBe(true);
    expect(termSearchKeys('second').every((k) => chunk.has(k))).toBe(true);
  });

  it('a short term requires nothing (every chunk is a candidate)', () => {
    expect(termSearchKeys('ab')).toEqual([]);
    expect(termSearchKeys('abc')).toHaveLength(1);
  });

  it('folds the characters Postgres lowers to ASCII the way it does', () => {
    // U+0130 (İ) and U+212A (Kelvin sign): lower() gives "i" and "k", which a term in ASCII finds.
    expect(holds('\u0130stanbul', 'istanbul')).toBe(true);
    expect(holds('\u212Aelvin', 'kelvin')).toBe(true);
  });

  it('requires no key around a cased letter outside ASCII, but keeps caseless scripts', () => {
    // "é" may fold differently in Postgres (its locale) than here: its windows are left out of the term.
    expect(termSearchKeys('éa')).toEqual([]);
    expect(termSearchKeys('caféine')).toEqual([...termSearchKeys('caf'), ...termSearchKeys('ine')]);
    expect(holds('RÉSUMÉ café', 'Café')).toBe(true);
    // Han characters have no case: their windows are required, so such a term stays selective.
    expect(termSearchKeys('東京都庁')).toHaveLength(2);
    expect(holds('東京都庁の住所', '東京都庁')).toBe(true);
    expect(holds('大阪府庁', '東京都庁')).toBe(false);
  });
});
