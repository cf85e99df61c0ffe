import { DELIVERY_STATUSES, EVENT_STATUSES, type operations } from '@relay/client';
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors';

export type EventStatusName = (typeof EVENT_STATUSES)[number];

type ListQuery = NonNullable<operations['getEvents']['parameters']['query']>;
/** The filters of GET /events (and of the bulk actions' `filter`), as the API takes them. */
export type EventFilter = Omit<ListQuery, 'page' | 'per_page'>;

/** What commander parses from the options `addFilterOptions` declares. */
export interface FilterOptions {
  search?: string;
  status?: EventStatusName;
  source?: string;
  /** A rule id. */
  rule?: string;
  from?: string;
  to?: string;
  needsAttention?: boolean;
  deliveryStatus?: EventFilter['delivery_status'];
  /** A destination id. */
  destination?: string;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** A duration such as `90s`, `15m`, `1h`, `2d` or `1w` in milliseconds, or undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * A time bound as the API takes it (ISO 8601 with a zone): `1h`/`2d` mean that long ago, `now` is now, and any date
 * JavaScript reads (`2025-01-31`, `2025-01-31T10:00:00+02:00`) is converted to UTC.
 */
export function timeBound(text: string, now = Date.now()): string {
  if (text === 'now') return new Date(now).toISOString();
  const ago = durationMs(text);
  if (ago !== undefined) return new Date(now - ago).toISOString();
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new UsageError(`"${text}" is neither a date (ISO 8601) nor a duration such as 1h or 2d`);
  return new Date(at).toISOString();
}

/**
 * Declares the list filters on a command (list, bulk-retry, bulk-delete take the same ones); bulk-retry's
 * --destination also says whose deliveries to retry, hence its own help.
 */
export function addFilterOptions(
  cmd: Command,
  destinationHelp = 'only events with a delivery to this destination (its id)',
): Command {
  return cmd
    .option('--search <text>', 'text in the source, payload or headers (case-insensitive)')
    .addOption(new Option('--status <status>', 'only events in this status').choices(EVENT_STATUSES))
    .option('--source <source>', 'only events of this source')
    .option('--rule <id>', 'only events of this rule (a source can feed several)')
    .option('--from <when>', 'created at or after: ISO 8601, or a duration ago such as 1h, 2d')
    .option('--to <when>', 'created before: ISO 8601, or a duration ago such as 30m')
    .option('--needs-attention', 'only failed events nobody acknowledged yet')
    .addOption(
      new Option('--delivery-status <status>', 'only events with a destination delivery in this status').choices(
        DELIVERY_STATUSES,
      ),
    )
    .option('--destination <id>', destinationHelp);
}

/** The API's filter from the parsed options; only what was given (an empty object when nothing was). */
export function filterOf(options: FilterOptions, now = Date.now()): EventFilter {
  const filter: EventFilter = {};
  if (options.search !== undefined) filter.search = options.search;
  if (options.status !== undefined) filter.status = options.status;
  if (options.source !== undefined) filter.source = options.source;
  if (options.rule !== undefined) filter.rule_id = options.rule;
  if (options.from !== undefined) filter.from = timeBound(options.from, now);
  if (options.to !== undefined) filter.to = timeBound(options.to, now);
  if (options.needsAttention) filter.needs_attention = 'true';
  if (options.deliveryStatus !== undefined) filter.delivery_status = options.deliveryStatus;
  if (options.destination !== undefined) filter.destination_id = options.destination;
  return filter;
}

export const isEmptyFilter = (filter: EventFilter) => Object.keys(filter).length === 0;
