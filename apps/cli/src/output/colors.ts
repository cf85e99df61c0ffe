// ANSI styles, on only when the stream is a terminal (or FORCE_COLOR says so) and NO_COLOR is unset.
const codes = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  cyan: [36, 39],
  gray: [90, 39],
} as const;

export type Style = keyof typeof codes;
export type Colors = Record<Style, (text: string) => string> & { enabled: boolean };

export function colorsFor(options: { isTty: boolean; noColor: boolean; forceColor: boolean }): Colors {
  const enabled = !options.noColor && (options.forceColor || options.isTty);
  const style = (name: Style) => {
    const [open, close] = codes[name];
    return (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  };
  return {
    enabled,
    ...(Object.fromEntries(Object.keys(codes).map((k) => [k, style(k as Style)])) as Record<
      Style,
      (text: string) => string
    >),
  };
}

/** The colour of an event status wherever one is shown. */
const STATUS_STYLES: Record<string, Style> = {
  delivered: 'green',
  failed: 'red',
  queued: 'blue',
  paused: 'yellow',
  ignored: 'dim',
};
export const statusStyle = (status: string): Style => STATUS_STYLES[status] ?? 'gray';

// eslint-disable-next-line no-control-regex -- the escape sequences this file writes
const ansi = /\u001b\[[0-9;]*m/g;
/** The printed width of text that may hold colour codes. */
export const visibleLength = (text: string) => text.replace(ansi, '').length;
