import type { RedisConnection } from './redis-connection';

// The holds this process knows of (Retry-After from a 429 or 503), fed by its own `hold` calls, by every other
// worker's over Redis pub/sub, and by the hold index when it subscribes or reconnects (a message published while
// it was away is not lost). With it, `acquire` answers a held key without asking Redis, and an unpaced key that
// was never held costs one Map lookup. Times are kept in this process's clock: messages carry the remaining
// milliseconds as Redis counted them, not an instant of Redis's clock.

export const pacingHoldsChannel = (prefix: string) => `${prefix}:pacing-holds`;

interface HoldMessage {
  key: string;
  ms: number;
}

const isHoldMessage = (value: unknown): value is HoldMessage =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as HoldMessage).key === 'string' &&
  typeof (value as HoldMessage).ms === 'number';

export class LocalHolds {
  private readonly until = new Map<string, number>();

  /** Remembers that `key` is held for `ms` more milliseconds (a longer hold already known stays). */
  note(key: string, ms: number): void {
    if (!(ms > 0)) return;
    const now = Date.now();
    const end = now + ms;
    if ((this.until.get(key) ?? 0) < end) this.until.set(key, end);
    // Ended holds of keys never asked about again are dropped now and then, so the map stays small.
    if (this.until.size > 1_000) for (const [held, until] of this.until) if (until <= now) this.until.delete(held);
  }

  /** Milliseconds `key` stays held, 0 when it is not (an ended hold is forgotten). */
  remaining(key: string): number {
    const end = this.until.get(key);
    if (end === undefined) return 0;
    const left = end - Date.now();
    if (left > 0) return left;
    this.until.delete(key);
    return 0;
  }

  get size(): number {
    return this.until.size;
  }

  /** Hears the holds every worker publishes on `subscriber`, a connection of its own (it runs no other command). */
  async listen(subscriber: RedisConnection, prefix: string, reload: () => Promise<void>): Promise<void> {
    const channel = pacingHoldsChannel(prefix);
    subscriber.on('message', (from: string, raw: string) => {
      if (from !== channel) return;
      let message: unknown;
      try {
        message = JSON.parse(raw);
      } catch {
        return;
      }
      if (isHoldMessage(message)) this.note(message.key, message.ms);
    });
    await subscriber.subscribe(channel);
    // After a reconnect (ioredis subscribes again, then says ready) the index tells what was missed meanwhile.
    subscriber.on('ready', () => void reload().catch(() => {}));
    await reload();
  }
}

/**
 * When a target's `Retry-After` (seconds, or an HTTP date) lets the next delivery go, as epoch milliseconds;
 * null when the header is absent or unreadable.
 */
export function retryAfterUntil(header: string | null | undefined, nowMs = Date.now()): number | null {
  if (!header) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return nowMs + Number(value) * 1_000;
  // An HTTP date names its month; Date.parse alone would take '-5' for a year.
  if (!/[a-z]{3}/i.test(value)) return null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(date, nowMs);
}
