import { Box, Text } from 'ink';
import { headerCells, rowCells, type EventRow } from './tui-model';
import { useTheme } from './tui-theme';

export interface EventListProps {
  rows: EventRow[];
  selected: number;
  /** The first row shown (the window scrolls to keep the selection in view). */
  start: number;
  height: number;
  width: number;
  now: number;
  loading: boolean;
  filter: string;
}

/** The events, newest first: one line each, cut to the width (never wrapped), the selection marked with ">". */
export function EventList({ rows, selected, start, height, width, now, loading, filter }: EventListProps) {
  const theme = useTheme();
  const head = headerCells(width);
  const shown = rows.slice(start, start + Math.max(0, height - 1));
  return (
    <Box flexDirection="column" height={height} width={width}>
      <Text wrap="truncate-end" bold>
        {'  '}
        {head.status}
        {head.rest}
      </Text>
      {shown.length === 0 ? (
        <Text wrap="truncate-end" {...theme.tone('gray')}>
          {'  '}
          {loading ? 'Loading events…' : filter ? `No events match "${filter}".` : 'No events yet.'}
        </Text>
      ) : (
        shown.map((row, i) => {
          const isSelected = start + i === selected;
          const cells = rowCells(row, width, now);
          return (
            <Text key={row.id} wrap="truncate-end" inverse={isSelected && theme.color}>
              {isSelected ? '> ' : '  '}
              <Text {...theme.status(row.status)}>{cells.status}</Text>
              {cells.rest}
            </Text>
          );
        })
      )}
    </Box>
  );
}
