// The search index keys: every window of three UTF-16 code units of a case-folded text, hashed to a 32-bit
// integer (FNV-1a). The index is a candidate filter only: an event is a candidate for a term when its keys hold
// every key of the term, and each candidate is then checked by its own text with ILIKE. So a hash collision or a
// folding difference that adds keys only costs a recheck; what must never happen is a term key missing from an
// event that matches, which the folding rules below guard against.
//
// Two classes of window, stored apart (docs/search.md). Windows made of hexadecimal digits (0-9, a-f: ids, hashes)
// or holding a decimal digit (numbers, dates, "#42") are few per event but drawn from few values, so a set shared
// by many events would hold nearly all of them: they are kept per event. Every other window (words, JSON
// structure) repeats across events, so one set per chunk of up to SEARCH_CHUNK_EVENTS events holds them at a
// fraction of the cost.

/** Events per index chunk: one key set (and one GIN entry per distinct key) for up to this many events. */
export const SEARCH_CHUNK_EVENTS = 100;

/** The keys of a text or a term, by where they are stored. */
export interface SearchKeys {
  /** Windows of words and structure (no decimal digit, not all hexadecimal digits): one set per chunk. */
  chunk: number[];
  /** Windows of three hexadecimal digits or with a decimal digit: one set per event. */
  event: number[];
}

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
/** Whether a window's key is the event's own: made of hex digits, or holding a decimal digit. */
const own = (a: number, b: number, c: number) =>
  (isHex(a) && isHex(b) && isHex(c)) || isDigit(a) || isDigit(b) || isDigit(c);

function key(a: number, b: number, c: number): number {
  let h = FNV_OFFSET;
  h = Math.imul(h ^ a, FNV_PRIME);
  h = Math.imul(h ^ b, FNV_PRIME);
  h = Math.imul(h ^ c, FNV_PRIME);
  return h | 0;
}

/**
 * An event keeps only some of its own keys: in every run of SEARCH_WINNOW consecutive own windows, the one with the
 * smallest key (the leftmost on a tie; "winnowing"). A term's run of own windows is a stretch of the text's run (the
 * class of a window depends on its characters only), so each run of SEARCH_WINNOW windows of the term is one of the
 * text's and its smallest key was kept: requiring those keys never misses an event. Runs shorter than
 * SEARCH_WINNOW windows (a number of three digits) keep nothing and are checked by text alone.
 */
export const SEARCH_WINNOW = 4;

function winnow(run: number[], into: Set<number>): void {
  for (let start = 0; start + SEARCH_WINNOW <= run.length; start++) {
    let smallest = run[start]!;
    for (let i = start + 1; i < start + SEARCH_WINNOW; i++) if (run[i]! < smallest) smallest = run[i]!;
    into.add(smallest);
  }
}

/** Adds the keys of `text` to a chunk's set and to the event's own set. */
export function addSearchKeys(text: string, chunk: Set<number>, event: Set<number>): void {
  if (text.length < 3) return;
  let a = fold(text.charCodeAt(0));
  let b = fold(text.charCodeAt(1));
  let run: number[] = [];
  for (let i = 2; i < text.length; i++) {
    const c = fold(text.charCodeAt(i));
    if (own(a, b, c)) run.push(key(a, b, c));
    else {
      chunk.add(key(a, b, c));
      if (run.length > 0) {
        winnow(run, event);
        run = [];
      }
    }
    a = b;
    b = c;
  }
  winnow(run, event);
}

/**
 * The keys an event (and its chunk) must hold to contain `term` (case-insensitively), from the windows made only of
 * characters that fold the same everywhere (a window with another character ends a run of own windows). Both empty
 * for a term shorter than three characters or without such a window: every event is then a candidate.
 */
export function termSearchKeys(term: string): SearchKeys {
  const chunk = new Set<number>();
  const event = new Set<number>();
  let run: number[] = [];
  for (let i = 0; i + 3 <= term.length; i++) {
    const [a, b, c] = [term.charCodeAt(i), term.charCodeAt(i + 1), term.charCodeAt(i + 2)];
    const [fa, fb, fc] = [fold(a), fold(b), fold(c)];
    const stable = stableInTerm(a) && stableInTerm(b) && stableInTerm(c);
    if (stable && own(fa, fb, fc)) {
      run.push(key(fa, fb, fc));
      continue;
    }
    if (stable) chunk.add(key(fa, fb, fc));
    winnow(run, event);
    run = [];
  }
  winnow(run, event);
  return { chunk: [...chunk], event: [...event] };
}

/**
 * Moves the own keys held by at least half the events of a chunk into the chunk's set: a date, a repository's id or
 * a payload sent again and again would otherwise be one GIN entry per event (most of what indexing cost while a
 * backlog drained, docs/performance.md). A search asks for an own key in the event's set or its chunk's
 * (relay_search_candidates), so either place finds the event; a key held by every other event is a weak filter in
 * the chunk anyway. Returns each event's own keys that stay its own; adds the moved ones to `chunk`.
 */
export function shareCommonKeys(events: readonly Set<number>[], chunk: Set<number>): number[][] {
  const held = new Map<number, number>();
  for (const own of events) for (const key of own) held.set(key, (held.get(key) ?? 0) + 1);
  const common = new Set<number>();
  for (const [key, count] of held) if (count * 2 >= events.length) common.add(key);
  for (const key of common) chunk.add(key);
  return events.map((own) => [...own].filter((key) => !common.has(key)));
}
