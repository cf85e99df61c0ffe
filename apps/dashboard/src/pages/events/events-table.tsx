import { Checkbox, Table } from '@mantine/core';
import { memo } from 'react';
import { deliveryCountsText } from '../../components/delivery-counts';
import { AnchorLink } from '../../components/links';
import { RelativeTime } from '../../components/relative-time';
import { StatusBadge } from '../../components/status-badge';
import type { EventSummary } from './event-types';
import classes from './events-table.module.css';

interface Props {
  events: Pick<
    EventSummary,
    'id' | 'source' | 'status' | 'created_at' | 'attempt_count' | 'failure_reason' | 'acknowledged' | 'delivery_counts'
  >[];
  /** Live statuses that arrived after the page was fetched. */
  statuses: Record<string, EventSummary['status']>;
  /** Live main-attempt counts, likewise (never below the fetched count). */
  attempts: Record<string, number>;
  selectable: boolean;
  selected: Set<string>;
  onToggle: (id: string) => void;
  onToggleAll: (ids: string[]) => void;
}

export function EventsTable({ events, statuses, attempts, selectable, selected, onToggle, onToggleAll }: Props) {
  const ids = events.map((e) => e.id);
  const all = ids.length > 0 && ids.every((id) => selected.has(id));
  return (
    <Table striped highlightOnHover verticalSpacing="xs" data-testid="events-table">
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
          <Table.Th>Status</Table.Th>
          <Table.Th>Attempts</Table.Th>
          <Table.Th>Reason</Table.Th>
          <Table.Th>Deliveries</Table.Th>
          <Table.Th>Received</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {events.map((e) => (
          <EventRow
            key={e.id}
            event={e}
            status={statuses[e.id] ?? e.status}
            attempts={Math.max(attempts[e.id] ?? 0, e.attempt_count)}
            selectable={selectable}
            selected={selected.has(e.id)}
            onToggle={onToggle}
          />
        ))}
      </Table.Tbody>
    </Table>
  );
}

type Row = Props['events'][number];
interface RowProps {
  event: Row;
  status: EventSummary['status'];
  attempts: number;
  selectable: boolean;
  selected: boolean;
  onToggle: (id: string) => void;
}

// Plain elements styled by events-table.module.css, not Mantine's Table.Td and Checkbox: 200 rows of those cost
// most of the page's render time. Memoised by value: a live message or a selection re-renders the rows it changes, not all 200 (live rows arrive
// as new objects each batch, so identity alone would not do).
const EventRow = memo(
  function EventRow({ event: e, status, attempts, selectable, selected, onToggle }: RowProps) {
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
          <AnchorLink to="/events/$id" params={{ id: e.id }}>
            {e.source}
          </AnchorLink>
        </td>
        <td>
          <StatusBadge status={status} acknowledged={e.acknowledged} />
        </td>
        <td>{attempts}</td>
        <td>
          <span className={classes.reason}>{e.failure_reason ?? ''}</span>
        </td>
        <td className={e.delivery_counts.failed > 0 ? classes.failed : undefined}>
          {deliveryCountsText(e.delivery_counts)}
        </td>
        <td>
          <RelativeTime iso={e.created_at} />
        </td>
      </tr>
    );
  },
  (a, b) =>
    a.status === b.status &&
    a.attempts === b.attempts &&
    a.selectable === b.selectable &&
    a.selected === b.selected &&
    a.onToggle === b.onToggle &&
    (['id', 'source', 'created_at', 'failure_reason', 'acknowledged'] as const).every(
      (k) => a.event[k] === b.event[k],
    ) &&
    deliveryCountsText(a.event.delivery_counts) === deliveryCountsText(b.event.delivery_counts),
);
