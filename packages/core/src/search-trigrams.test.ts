import { addSearchKeys, shareCommonKeys, termSearchKeys } from './search-trigrams';

function keysOf(text: string) {
  const chunk = new Set<number>();
  const event = new Set<number>();
  addSearchKeys(text, chunk, event);
  return { chunk, event };
}
const holds = (text: string, term: string) => {
  const keys = keysOf(text);
  const wanted = termSearchKeys(term);
  return wanted.chunk.every((k) => keys.chunk.has(k)) && wanted.event.every((k) => keys.event.has(k));
};
const all = (term: string) => [...termSearchKeys(term).chunk, ...termSearchKeys(term).event];

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
    const chunk = new Set<number>();
    addSearchKeys('first event body', chunk, new Set());
    addSearchKeys('second event body', chunk, new Set());
    expect(termSearchKeys('first').chunk.every((k) => chunk.has(k))).toBe(true);
    expect(termSearchKeys('second').chunk.every((k) => chunk.has(k))).toBe(true);
  });

  it('keeps windows of hexadecimal digits or with a decimal digit per event, the rest per chunk', () => {
    const text = '{"sha":"6113728F27ae","n":42}';
    // Own windows: ':"6' … '7ae' (twelve, one run) and '":4', ':42', '42}' (a run of three: too short to keep).
    // Of each four consecutive windows of a run the smallest key is kept: at most nine of the twelve.
    expect(keysOf(text).event.size).toBeGreaterThan(0);
    expect(keysOf(text).event.size).toBeLessThanOrEqual(9);
    expect(holds(text, '728f27')).toBe(true);
    expect(holds(text, '6113728F27AE')).toBe(true);
    expect(holds(text, 'deadbeef1234')).toBe(false);
    expect(termSearchKeys('728F27')).toEqual({ chunk: [], event: termSearchKeys('728f27').event });
    expect(termSearchKeys('728f27').event).toHaveLength(1);
    // Runs of own windows shorter than four windows ask for nothing; the words around them go to the chunk.
    expect(termSearchKeys('"n":42')).toEqual({ chunk: termSearchKeys('"n":').chunk, event: [] });
    expect(termSearchKeys('sha":"611')).toEqual({ chunk: termSearchKeys('sha":"').chunk, event: [] });
  });

  it('finds every substring of six characters or more of ids and numbers (winnowing keeps what a term asks)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = '0123456789abcdefABCDEF-: "xyz';
    for (let round = 0; round < 200; round++) {
      const text = Array.from({ length: 60 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const keys = keysOf(text);
      for (let from = 0; from < text.length; from += 3)
        for (let length = 3; from + length <= text.length; length += 2) {
          const wanted = termSearchKeys(text.slice(from, from + length));
          expect(wanted.event.every((k) => keys.event.has(k))).toBe(true);
          expect(wanted.chunk.every((k) => keys.chunk.has(k))).toBe(true);
        }
    }
  });

  it('a short term requires nothing (every chunk is a candidate)', () => {
    expect(termSearchKeys('ab')).toEqual({ chunk: [], event: [] });
    expect(all('xyz')).toHaveLength(1);
    expect(all('abc')).toHaveLength(0);
  });

  it('folds the characters Postgres lowers to ASCII the way it does', () => {
    // U+0130 (İ) and U+212A (Kelvin sign): lower() gives "i" and "k", which a term in ASCII finds.
    expect(holds('\u0130stanbul', 'istanbul')).toBe(true);
    expect(holds('\u212Aelvin', 'kelvin')).toBe(true);
  });

  it('requires no key around a cased letter outside ASCII, but keeps caseless scripts', () => {
    // "é" may fold differently in Postgres (its locale) than here: its windows are left out of the term.
    expect(all('éa')).toEqual([]);
    expect(all('caféine').sort()).toEqual([...all('caf'), ...all('ine')].sort());
    expect(holds('RÉSUMÉ café', 'Café')).toBe(true);
    // Han characters have no case: their windows are required, so such a term stays selective.
    expect(all('東京都庁')).toHaveLength(2);
    expect(holds('東京都庁の住所', '東京都庁')).toBe(true);
    expect(holds('大阪府庁', '東京都庁')).toBe(false);
  });

  it("moves the own keys at least half a chunk's events hold into the chunk, and keeps the rest per event", () => {
    const chunk = new Set([1]);
    const own = shareCommonKeys(
      [new Set([10, 20, 30]), new Set([10, 20, 40]), new Set([10, 50]), new Set([10])],
      chunk,
    );
    // 10: four of four, 20: two of four (half); 30, 40, 50: one each.
    expect([...chunk].sort((a, b) => a - b)).toEqual([1, 10, 20]);
    expect(own).toEqual([[30], [40], [50], []]);
    // Every event's own keys are still in its own set or the chunk's.
    expect(shareCommonKeys([new Set([7, 8])], new Set())).toEqual([[]]);
  });
});
