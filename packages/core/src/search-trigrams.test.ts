import { addSearchKeys, SEARCH_LONG_WINDOW, SEARCH_WINNOW, termSearchKeys } from './search-trigrams';

function keysOf(...texts: string[]) {
  const keys = new Set<number>();
  for (const text of texts) addSearchKeys(text, keys);
  return keys;
}
const holds = (text: string, term: string) => {
  const keys = keysOf(text);
  return termSearchKeys(term).every((k) => keys.has(k));
};
/** Every substring of `text` of `min` characters or more (every third start, every other length). */
function* substrings(text: string, min: number) {
  for (let from = 0; from < text.length; from += 3)
    for (let length = min; from + length <= text.length; length += 2) yield text.slice(from, from + length);
}

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
    const chunk = keysOf('first event body 6113728f27ae', 'second event body');
    for (const term of ['first', 'second', '3728f27a'])
      expect(termSearchKeys(term).every((k) => chunk.has(k))).toBe(true);
  });

  it('keys ids and numbers by long windows, winnowed', () => {
    const text = '{"sha":"6113728F27ae","n":42}';
    // Own three-character windows: ':"6' … '7ae' (twelve, one run of 14 characters: ten long windows, of each
    // two consecutive ones the smaller key) and '":4', ':42', '42}' (one long window: too short to keep).
    expect(SEARCH_LONG_WINDOW + SEARCH_WINNOW - 1).toBe(6);
    expect(holds(text, '728f27')).toBe(true);
    expect(holds(text, '6113728F27AE')).toBe(true);
    expect(holds(text, 'deadbeef1234')).toBe(false);
    expect(termSearchKeys('728F27')).toEqual(termSearchKeys('728f27'));
    expect(termSearchKeys('728f27')).toHaveLength(1);
    // Runs too short for two long windows ask for nothing: only the words around them are required.
    expect(termSearchKeys('"n":42')).toEqual(termSearchKeys('"n":'));
    expect(termSearchKeys('sha":"611')).toEqual(termSearchKeys('sha":"'));
  });

  it('an id is told apart from the ids of a hundred other events (long windows do not fill a chunk)', () => {
    let seed = 11;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647; // exact in doubles
    const hex = () => Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
    const chunk = keysOf(
      ...Array.from({ length: 100 }, () => `{"before":"${hex()}","after":"${hex()}","tree":"${hex()}"}`),
    );
    // Three-character windows of hex digits would hold ~94 % of the 4,096 values here, and most terms' keys.
    let found = 0;
    for (let i = 0; i < 200; i++) if (termSearchKeys(hex().slice(0, 12)).every((k) => chunk.has(k))) found++;
    expect(found).toBe(0);
  });

  it('finds every substring of ids and numbers (winnowing keeps what a term asks)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const alphabet = '0123456789abcdefABCDEF-: "xyz';
    for (let round = 0; round < 200; round++) {
      const text = Array.from({ length: 60 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const keys = keysOf(text);
      for (const term of substrings(text, 3)) expect(termSearchKeys(term).every((k) => keys.has(k))).toBe(true);
    }
  });

  it('a short term requires nothing (every chunk is a candidate)', () => {
    expect(termSearchKeys('ab')).toEqual([]);
    expect(termSearchKeys('xyz')).toHaveLength(1);
    expect(termSearchKeys('abc')).toHaveLength(0);
    expect(termSearchKeys('42424')).toHaveLength(0);
    expect(termSearchKeys('424242')).toHaveLength(1);
  });

  it('folds the characters Postgres lowers to ASCII the way it does', () => {
    // U+0130 (İ) and U+212A (Kelvin sign): lower() gives "i" and "k", which a term in ASCII finds.
    expect(holds('\u0130stanbul', 'istanbul')).toBe(true);
    expect(holds('\u212Aelvin', 'kelvin')).toBe(true);
  });

  it('requires no key around a cased letter outside ASCII, but keeps caseless scripts', () => {
    // "é" may fold differently in Postgres (its locale) than here: its windows are left out of the term.
    expect(termSearchKeys('éa')).toEqual([]);
    expect(termSearchKeys('caféine').sort()).toEqual([...termSearchKeys('caf'), ...termSearchKeys('ine')].sort());
    expect(holds('RÉSUMÉ café', 'Café')).toBe(true);
    expect(holds('é2026-12-04é', '2026-12-04')).toBe(true);
    // Han characters have no case: their windows are required, so such a term stays selective.
    expect(termSearchKeys('東京都庁')).toHaveLength(2);
    expect(holds('東京都庁の住所', '東京都庁')).toBe(true);
    expect(holds('大阪府庁', '東京都庁')).toBe(false);
  });
});
