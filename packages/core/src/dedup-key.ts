import { createHash } from 'node:crypto';
import { jsonPointerKeyText } from './json-pointer';
import { DEDUP_PRESET_KEYS, type DedupOption } from './rule-options';

/** Keys longer than this are stored as their SHA-256 (hex), so one index entry stays small. */
export const MAX_DEDUP_KEY_LENGTH = 200;

const utf8 = new TextDecoder('utf-8');

/** Where a rule's deduplication key comes from: a preset names a header or a JSON pointer. */
export function dedupKeySource(option: DedupOption): { header: string } | { json_pointer: string } | undefined {
  if (option.preset !== undefined) return DEDUP_PRESET_KEYS[option.preset];
  if (option.header !== undefined) return { header: option.header.toLowerCase() };
  if (option.json_pointer !== undefined) return { json_pointer: option.json_pointer };
  return undefined;
}

/**
 * A webhook's deduplication key under a rule's option, from its stored (lower-cased) headers or its
 * JSON body; undefined when the webhook carries none (an absent or empty header, a pointer to nothing
 * or to an object, array or null): such a webhook is stored like any other. A key over
 * MAX_DEDUP_KEY_LENGTH characters, or one with a NUL (which Postgres text cannot hold), becomes its
 * SHA-256 hex digest.
 */
export function dedupKeyOf(
  option: DedupOption,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
): string | undefined {
  const from = dedupKeySource(option);
  if (from === undefined) return undefined;
  let key: string | undefined;
  if ('header' in from) {
    key = headers[from.header];
  } else {
    let document: unknown;
    try {
      document = JSON.parse(utf8.decode(body));
    } catch {
      return undefined;
    }
    key = jsonPointerKeyText(document, from.json_pointer);
  }
  if (key === undefined || key === '') return undefined;
  if (key.length > MAX_DEDUP_KEY_LENGTH || key.includes('\u0000')) {
    return createHash('sha256').update(key, 'utf8').digest('hex');
  }
  return key;
}
