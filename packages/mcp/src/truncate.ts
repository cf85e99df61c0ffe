/** How much of a payload a tool result carries; `get_event_payload` pages through the rest. */
export const PAYLOAD_PREVIEW_CHARS = 4_000;

/**
 * Text cut to `max` characters with a note saying so, so results stay small for an assistant's context window.
 * `note` is null when nothing was cut.
 */
export function truncated(
  text: string,
  max = PAYLOAD_PREVIEW_CHARS,
): { text: string; truncated: boolean; note: string | null } {
  if (text.length <= max) return { text, truncated: false, note: null };
  return {
    text: text.slice(0, max),
    truncated: true,
    note: `Truncated: ${text.length} characters, showing the first ${max}. Call get_event_payload for the rest.`,
  };
}
