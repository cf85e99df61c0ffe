// The search index keys of a case-folded text, hashed to 32-bit integers (FNV-1a) and stored in one key set per
// chunk of up to SEARCH_CHUNK_EVENTS events (docs/search.md). The index is a candidate filter only: the events of a
// chunk are candidates for a term when the chunk's keys hold every key of the term, and each candidate is then
// checked by its own text with ILIKE. So a hash collision or a folding difference that adds keys only costs a
// recheck; what must never happen is a term key missing from a text that contains the term, which the folding and
// winnowing rules below guard against.
//
// Two kinds of key. Words and JSON structure repeat across events: every window of three characters is a key, and a
// chunk's set of them stays small. Ids, hashes and numbers do not repeat, and their three-character windows are
// drawn from few values (4,096 of hex digits), so a chunk would hold nearly all of them and tell no id apart: where
// three-character windows are made of hex digits or hold a decimal digit ("own" windows), the key is instead a
// window of SEARCH_LONG_WINDOW characters all of whose three-character windows are own, of which only some are kept
// (winnowing, below).

/** Events per index chunk: one key set (and one GIN entry per distinct key) for up to this many events. */
export const SEARCH_CHUNK_EVENTS = 100;

/** Characters in a key of ids and numbers: a million hex values, so a chunk's few thousand tell ids apart. */
export const SEARCH_LONG_WINDOW = 5;

/**
 * Of every SEARCH_WINNOW consecutive long windows of a run only the smallest key is kept ("winnowing", the leftmost
 * on a tie). A term's run of own windows is a stretch of the text's run (the kind of a window depends on its
 * characters only), so each SEARCH_WINNOW consecutive long windows of the term are the text's too, and their
 * smallest key was kept: requiring it never misses an event. A run of ids or digits shorter than
 * SEARCH_LONG_WINDOW + SEARCH_WINNOW - 1 characters (6: "42424" alone) asks for nothing and is checked by text.
 */
export const SEARCH_WINNOW = 2;

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

// Folded, so "A"-"F" are already "a"-"f".
const isHex = (code: number) => (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66);
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
/** Whether a three-character window is own: made of hex digits, or holding a decimal digit. */
const own = (a: number, b: number, c: number) =>
  (isHex(a) && isHex(b) && isHex(c)) || isDigit(a) || isDigit(b) || isDigit(c);

function hash(codes: Uint16Array, from: number, length: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < from + length; i++) h = Math.imul(h ^ codes[i]!, FNV_PRIME);
  return h | 0;
}

function winnow(run: number[], into: Set<number>): void {
  for (let start = 0; start + SEARCH_WINNOW <= run.length; start++) {
    let smallest = run[start]!;
    for (let i = start + 1; i < start + SEARCH_WINNOW; i++) if (run[i]! < smallest) smallest = run[i]!;
    into.add(smallest);
  }
}

/**
 * Adds the keys of folded codes to `into`. `usable[i]` says whether the window at i may give a key (a term's
 * windows around an unstable character may not); an unusable window ends a run like a window that is not own.
 */
function addKeys(codes: Uint16Array, usable: (i: number) => boolean, into: Set<number>): void {
  const long = SEARCH_LONG_WINDOW - 2; // consecutive own windows that make one long window
  let run: number[] = [];
  let ownRun = 0;
  for (let i = 0; i + 3 <= codes.length; i++) {
    const isOwn = own(codes[i]!, codes[i + 1]!, codes[i + 2]!);
    if (usable(i) && isOwn) {
      ownRun++;
      const start = i + 3 - SEARCH_LONG_WINDOW;
      if (ownRun >= long) run.push(hash(codes, start, SEARCH_LONG_WINDOW));
      continue;
    }
    if (usable(i)) into.add(hash(codes, i, 3));
    ownRun = 0;
    winnow(run, into);
    run = [];
  }
  winnow(run, into);
}

function folded(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = fold(text.charCodeAt(i));
  return codes;
}

/** Adds the keys of a text (an event's search text) to its chunk's key set. */
export function addSearchKeys(text: string, into: Set<number>): void {
  addKeys(folded(text), () => true, into);
}

/**
 * The keys a chunk must hold for one of its events to contain `term` (case-insensitively), from the windows made
 * only of characters that fold the same everywhere. Empty for a term shorter than three characters or without such
 * a window: every event is then a candidate.
 */
export function termSearchKeys(term: string): number[] {
  const stable = Array.from({ length: term.length }, (_, i) => stableInTerm(term.charCodeAt(i)));
  const keys = new Set<number>();
  addKeys(folded(term), (i) => stable[i]! && stable[i + 1]! && stable[i + 2]!, keys);
  return [...keys];
}
