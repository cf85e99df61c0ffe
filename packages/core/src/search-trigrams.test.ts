import { addSearchKeys, termSearchKeys } from './search-trigrams';

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
    const keys = keysOf('{"sha":"6113728F27ae","n":42}');
    // ':"6', '"61', then "611" … "7ae" (ten): twelve; '":4', ":42", "42}": three more.
    expect(keys.event.size).toBe(15);
    expect(termSearchKeys('"n":42')).toEqual({
      chunk: termSearchKeys('"n":').chunk,
      event: termSearchKeys('":42').event,
    });
    expect(holds('{"sha":"6113728F27ae","n":42}', '728f27')).toBe(true);
    expect(termSearchKeys('728f27')).toEqual({ chunk: [], event: termSearchKeys('728F27').event });
    expect(termSearchKeys('728f27').event).toHaveLength(4);
    // A mixed term asks both: "sha" per chunk, ':"6', '"61', "611" per event.
    expect(termSearchKeys('sha":"611').event).toEqual(termSearchKeys(':"611').event);
    expect(termSearchKeys('sha":"611').chunk).toHaveLength(4);
    expect(holds('{"sha":"6113728F27ae"}', '6113728f27af')).toBe(false);
  });

  it('a short term requires nothing (every chunk is a candidate)', () => {
    expect(termSearchKeys('ab')).toEqual({ chunk: [], event: [] });
    expect(all('abc')).toHaveLength(1);
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
});
