import { Box, Text } from 'ink';

export const KEYS: [string, string][] = [
  ['↑ ↓  j k', 'move the selection (PgUp PgDn, g G: a page, the top, the end)'],
  ['Enter', 'open the event: payload, headers, attempts'],
  ['/', 'filter (searches source, payload and headers); Enter applies, Esc cancels'],
  ['r', 'retry the selected event (a new delivery run)'],
  ['a', 'acknowledge the selected failed event'],
  ['d', 'delete the selected event (asks y/n first)'],
  ['s', 'statistics of the last 24 hours'],
  ['?', 'this help'],
  ['Esc  q', 'back (from a panel); q on the list quits'],
];

/** The keys, one per line. */
export function HelpPanel({ height, width }: { height: number; width: number }) {
  return (
    <Box flexDirection="column" height={height} width={width}>
      <Text bold>Keys</Text>
      {KEYS.map(([key, what]) => (
        <Text key={key} wrap="truncate-end">
          {`  ${key.padEnd(10)} ${what}`}
        </Text>
      ))}
      <Text> </Text>
      <Text wrap="truncate-end">Press Esc, q or ? to go back.</Text>
    </Box>
  );
}
