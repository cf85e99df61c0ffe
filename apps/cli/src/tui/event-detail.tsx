import { Box, Text } from 'ink';
import type { Line } from './detail-lines';
import { useTheme } from './tui-theme';

export interface EventDetailProps {
  lines: Line[] | undefined;
  /** The first line shown (j/k scroll). */
  offset: number;
  height: number;
  width: number;
  error: string | undefined;
}

/** The detail of one event, scrolled to `offset`; every line cut to the width. */
export function EventDetailPanel({ lines, offset, height, width, error }: EventDetailProps) {
  const theme = useTheme();
  if (!lines)
    return (
      <Box height={height} width={width}>
        <Text wrap="truncate-end" {...(error ? theme.tone('red') : theme.tone('gray'))}>
          {error ?? 'Loading the event…'}
        </Text>
      </Box>
    );
  const shown = lines.slice(offset, offset + height);
  return (
    <Box flexDirection="column" height={height} width={width}>
      {shown.map((line, i) => (
        <Text
          key={offset + i}
          wrap="truncate-end"
          bold={line.bold ?? false}
          {...(line.status ? theme.status(line.status) : line.tone ? theme.tone(line.tone) : {})}
        >
          {line.text || ' '}
        </Text>
      ))}
    </Box>
  );
}
