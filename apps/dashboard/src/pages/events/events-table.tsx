import { Checkbox, Table } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import { memo, type MouseEvent } from 'react';
import { APP_BASE } from '../../app/session';
import { deliveryCountsText } from '../../components/delivery-counts';
import { RelativeTime } from '../../components/relative-time';
import { EVENT_COLUMNS, type ColumnId, type Columns } from './events-columns';
import type { EventSummary } from './event-types';
import classes from './events-table.module.css';

interface Props {
  /** The rows as the newest thing known of each (live-rows.ts). */
  events: EventSummary[];
  columns: Columns;
  selectable: boolean;
  selected: Set<string>;
  onToggle: (id: string) => void;
  onToggleAll: (ids: string[]) => void;
}

export function EventsTable({ events, columns, selectable, selected, onToggle, onToggleAll }: Props) {
  const navigate = useNavigate();
  const ids = events.map((e) => e.id);
  // The rows' links are plain anchors (a router Link per row cost a location build each); one handler here
  // follows a plain click inside the app, and a modified or middle click opens the href as any link does.
  const follow = (e: MouseEvent<HTMLElement>) => {
    const link = (e.target as HTMLElement).closest<HTMLAnchorElement>('a[data-event-id]');
    if (!link || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    void navigate({ to: '/events/$id', params: { id: link.dataset.eventId! } });
  };
  const all = ids.length > 0 && ids.every((id) => selected.has(id));
  return (
    <Table striped highlightOnHover verticalSpacing="xs" data-testid="events-table" className={classes.table}>
      <Table.Thead>
        <Table.Tr>
          {selectable ? (
            <Table.Th w={40}>
              <Checkbox
                aria-label="Select all rows"
                checked={all}
                indeterminate={!all && ids.some((id) => selected.has(id))}
                onChange={() => onToggleAll(all ? [] : ids)}
              />
            </Table.Th>
          ) : null}
          <Table.Th>Source</Table.Th>
          {EVENT_COLUMNS.filter((c) => columns.has(c.id)).map((c) => (
            <Table.Th key={c.id}>{c.label}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody onClick={follow}>
        {events.map((e) => (
          <EventRow
            key={e.id}
            event={e}
            columns={columns}
            selectable={selectable}
            selected={selected.has(e.id)}
            onToggle={onToggle}
          />
        ))}
      </Table.Tbody>
    </Table>
  );
}

interface RowProps {
  event: EventSummary;
  columns: Columns;
  selectable: boolean;
  selected: boolean;
  onToggle: (id: string) => void;
}

function cell(id: ColumnId, e: EventSummary) {
  switch (id) {
    case 'status':
      return (
        <td key={id}>
          <span className={classes.badge} data-status={e.status} data-outline={e.acknowledged || undefined}>
            {e.status}
            {e.acknowledged ? ' (ack)' : ''}
          </span>
        </td>
      );
    case 'attempts':
      return <td key={id}>{e.attempt_count}</td>;
    case 'reason':
      return (
        <td key={id}>
          <span className={classes.reason}>{e.failure_reason ?? ''}</span>
        </td>
      );
    case 'last_error':
      return (
        <td key={id}>
          <span className={`${classes.reason} ${classes.clip}`} title={e.last_error ?? undefined}>
            {e.last_error ?? ''}
          </span>
        </td>
      );
    case 'target':
      return (
        <td key={id}>
          <span className={`${classes.reason} ${classes.clip}`} title={e.target_url ?? undefined}>
            {e.target_url ?? ''}
          </span>
        </td>
      );
    case 'deliveries':
      return (
        <td key={id} className={e.delivery_counts.failed > 0 ? classes.failed : undefined}>
          {deliveryCountsText(e.delivery_counts)}
        </td>
      );
    case 'received':
      return (
        <td key={id}>
          <RelativeTime iso={e.created_at} />
        </td>
      );
  }
}

// Plain elements styled by events-table.module.css, not Mantine's Table.Td, Badge, Anchor (nor the router's Link)
// and Checkbox: 200 rows of
// those cost most of the page's render time. Memoised by value: a live message or a selection re-renders the rows it
// changes, not all 200 (live rows arrive as new objects each batch, so identity alone would not do).
const EventRow = memo(
  function EventRow({ event: e, columns, selectable, selected, onToggle }: RowProps) {
    return (
      <tr className={classes.row} data-testid="event-row">
        {selectable ? (
          <td>
            <input
              type="checkbox"
              className={classes.check}
              aria-label={`Select event ${e.id}`}
              checked={selected}
              onChange={() => onToggle(e.id)}
            />
          </td>
        ) : null}
        <td>
          <a href={`${APP_BASE}/events/${e.id}`} data-event-id={e.id} className={classes.link}>
            {e.source}
          </a>
        </td>
        {EVENT_COLUMNS.filter((c) => columns.has(c.id)).map((c) => cell(c.id, e))}
      </tr>
    );
  },
  (a, b) =>
    a.columns === b.columns &&
    a.selectable === b.selectable &&
    a.selected === b.selected &&
    a.onToggle === b.onToggle &&
    (a.event === b.event ||
      ((
        [
          'id',
          'source',
          'status',
          'attempt_count',
          'created_at',
          'failure_reason',
          'last_error',
          'target_url',
          'acknowledged',
        ] as const
      ).every((k) => a.event[k] === b.event[k]) &&
        deliveryCountsText(a.event.delivery_counts) === deliveryCountsText(b.event.delivery_counts))),
);
