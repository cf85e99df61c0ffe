// What the keys do against the API, all through the typed client; each answers a line for the status bar.
import { dataOf, type AnswerOf } from '@relay/client';
import type { Connection } from '../context';
import { destinationNames } from '../commands/rules/destination-ref';
import { describeError } from '../errors';

export type EventDetail = AnswerOf<'/events/{id}', 'get'>;
export type Attempt = AnswerOf<'/events/{id}/attempts', 'get'>['attempts'][number];
export type Stats = AnswerOf<'/stats', 'get'>;

export interface Notice {
  kind: 'info' | 'error';
  text: string;
}

const short = (id: string) => id.slice(0, 8);
const path = (id: string) => ({ params: { path: { id } } });

/** A failed call as the status line shows it: `error: <detail> [code]`. */
export const errorNotice = (error: unknown, baseUrl?: string): Notice => ({
  kind: 'error',
  text: `error: ${describeError(error, baseUrl).message}`,
});

async function attempt(connection: Connection, run: () => Promise<string>): Promise<Notice> {
  try {
    return { kind: 'info', text: await run() };
  } catch (error) {
    return errorNotice(error, connection.baseUrl);
  }
}

export const retryEvent = (connection: Connection, id: string) =>
  attempt(connection, async () => {
    await dataOf(connection.client.POST('/events/{id}/retry', path(id)));
    return `Retry of ${short(id)} queued.`;
  });

export const acknowledgeEvent = (connection: Connection, id: string) =>
  attempt(connection, async () => {
    await dataOf(connection.client.POST('/events/{id}/ack', path(id)));
    return `Acknowledged ${short(id)}.`;
  });

export const deleteEvent = (connection: Connection, id: string) =>
  attempt(connection, async () => {
    await dataOf(connection.client.DELETE('/events/{id}', path(id)));
    return `Deleted ${short(id)}.`;
  });

export interface Detail {
  event: EventDetail;
  attempts: Attempt[];
  /** Destination names by id, to show deliveries by name (empty when the caller cannot read them). */
  names: ReadonlyMap<string, string>;
}

export async function loadDetail(connection: Connection, id: string): Promise<Detail> {
  const [event, attempts] = await Promise.all([
    dataOf(connection.client.GET('/events/{id}', path(id))),
    dataOf(connection.client.GET('/events/{id}/attempts', path(id))),
  ]);
  const names = event.deliveries.length ? await destinationNames(connection.client, event.provider_id) : new Map();
  return { event, attempts: attempts.attempts, names };
}

export const loadStats = (connection: Connection) => dataOf(connection.client.GET('/stats'));

/** The organization's name for the header (a key or user has one; an operator has none). */
export async function loadOrganization(connection: Connection): Promise<string> {
  const me = (await dataOf(connection.client.GET('/api/auth/me'))) as {
    kind: string | null;
    organization: { id: string; slug?: string; name?: string } | null;
  };
  const org = me.organization;
  return org ? (org.slug ?? org.name ?? org.id) : me.kind === 'operator' ? 'platform operator' : '-';
}
