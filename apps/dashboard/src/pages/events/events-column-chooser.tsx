import { Button, Checkbox, Popover, Stack } from '@mantine/core';
import { EVENT_COLUMNS, type ColumnId, type Columns } from './events-columns';

interface Props {
  columns: Columns;
  onChange: (columns: Columns) => void;
}

/** Which of the events table's optional columns show (remembered per user: events-prefs.ts). */
export function EventsColumnChooser({ columns, onChange }: Props) {
  const toggle = (id: ColumnId, on: boolean) => {
    const next = new Set(columns);
    if (on) next.add(id);
    else next.delete(id);
    onChange(next);
  };
  return (
    <Popover position="bottom-end" shadow="md" withinPortal>
      <Popover.Target>
        {/* Beside filters that wrap: it keeps its own width rather than be squeezed to "Colu". */}
        <Button size="xs" variant="default" style={{ flexShrink: 0 }}>
          Columns
        </Button>
      </Popover.Target>
      <Popover.Dropdown aria-label="Columns">
        <Stack gap="xs">
          {EVENT_COLUMNS.map((c) => (
            <Checkbox
              key={c.id}
              label={c.label}
              checked={columns.has(c.id)}
              onChange={(e) => toggle(c.id, e.currentTarget.checked)}
            />
          ))}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
