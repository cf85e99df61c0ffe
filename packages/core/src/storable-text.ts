// Postgres `text` holds any Unicode character except NUL (U+0000): one NUL in a target's answer
// used to fail the statement that records it, and with it every other row of the batch. Text that
// comes from the outside world (response excerpts, error messages) passes through here before it is
// stored. Invalid UTF-8 is already U+FFFD once decoded; NUL becomes U+FFFD too, so a stored excerpt
// shows where the target sent bytes the database cannot hold.
export const REPLACEMENT_CHARACTER = '\uFFFD';

export function toStorableText(value: string): string;
export function toStorableText(value: string | null): string | null;
export function toStorableText(value: string | null): string | null {
  if (value === null || !value.includes('\u0000')) return value;
  return value.replaceAll('\u0000', REPLACEMENT_CHARACTER);
}
