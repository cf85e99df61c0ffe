import { createHash } from 'node:crypto';
import { jsonPointerKeyText } from './json-pointer';
import type { OrderingOption } from './rule-options';

/** Keys longer than this are stored as their SHA-256 (hex), so one index entry stays small. */
export const MAX_ORDERING_KEY_LENGTH = 200;

const utf8 = new TextDecoder('utf-8');

/**
 * A webhook's ordering key under a rule's `ordering` option, from its stored (lower-cased) headers or
 * its JSON body. The whole source is one key (''), and so is a webhook that carries no key (an absent
 * header, a pointer to nothing or to an object, array or null): it still has to be delivered in order
 * with something, and the source is the one order every webhook of the rule shares. A key over
 * MAX_ORDERING_KEY_LENGTH characters, or one with a NUL (which Postgres text cannot hold), becomes its
 * SHA-256 hex digest.
 */
export function orderingKeyOf(
  option: OrderingOption,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
): string {
  let key: string | undefined;
  if (option.header !== undefined) {
    key = headers[option.header.toLowerCase()];
  } else if (option.json_pointer !== undefined) {
    try {
      key = jsonPointerKeyText(JSON.parse(utf8.decode(body)), option.json_pointer);
    } catch {
      key = undefined;
    }
  }
  if (key === undefined) return '';
  if (key.length > MAX_ORDERING_KEY_LENGTH || key.includes('\u0000')) {
    return createHash('sha256').update(key, 'utf8').digest('hex');
  }
  return key;
}
