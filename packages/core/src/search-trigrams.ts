// The search index keys: every window of three UTF-16 code units of a case-folded text, hashed to a 32-bit
// integer (FNV-1a). The index is a candidate filter only: a chunk of events is a candidate for a term when its
// key set holds every key of the term, and each candidate event is then checked by its own text with ILIKE.
// So a hash collision or a folding difference that adds keys only costs a recheck; what must never happen is
// a term key missing from the chunk of an event that matches, which the folding rules below guard against.

/** Events per index chunk: one key set (and one GIN entry per distinct key) for up to this many events. */
export const SEARCH_CHUNK_EVENTS = 200;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

// Per code unit, so the text and a term fold the same way whatever surrounds a character. A character whose
// lower case is longer than one unit (U+0130 İ → "i̇") keeps the first unit: Postgres' lower() maps it to "i".
const foldTable = new Map<number, number>();
function fold(code: number): number {
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
  let folded = foldTable.get(code);
  if (folded === undefined) {
    folded = String.fromCharCode(code).toLowerCase().charCodeAt(0);
    foldTable.set(code, folded);
  }
  return folded;
}

// A term character whose case Postgres and JavaScript might fold differently (a cased letter outside ASCII:
// the two follow different Unicode versions and locales) makes the keys around it unsafe to require.
function stableInTerm(code: number): boolean {
  if (code < 0x80) return true;
  const ch = String.fromCharCode(code);
  return ch.toLowerCase() === ch && ch.toUpperCase() === ch;
}

function key(a: number, b: number, c: number): number {
  let h = FNV_OFFSET;
  h = Math.imul(h ^ a, FNV_PRIME);
  h = Math.imul(h ^ b, FNV_PRIME);
  h = Math.imul(h ^ c, FNV_PRIME);
  return h | 0;
}

/** Adds the keys of `text` to `into` (a chunk's set: the keys of its events' texts). */
export function addSearchKeys(text: string, into: Set<number>): Set<number> {
  if (text.length < 3) return into;
  let a = fold(text.charCodeAt(0));
  let b = fold(text.charCodeAt(1));
  for (let i = 2; i < text.length; i++) {
    const c = fold(text.charCodeAt(i));
    into.add(key(a, b, c));
    a = b;
    b = c;
  }
  return into;
}

/**
 * The keys a chunk must hold for an event of it to contain `term` (case-insensitively): those of the windows
 * made only of characters that fold the same everywhere. Empty for a term shorter than three characters or
 * without such a window: every chunk is then a candidate.
 */
export function termSearchKeys(term: string): number[] {
  const keys = new Set<number>();
  for (let i = 0; i + 3 <= term.length; i++) {
    const a = term.charCodeAt(i);
    const b = term.charCodeAt(i + 1);
    const c = term.charCodeAt(i + 2);
    if (stableInTerm(a) && stableInTerm(b) && stableInTerm(c)) keys.add(key(fold(a), fold(b), fold(c)));
  }
  return [...keys];
}
