// Fair sharing of a worker's delivery pool between target origins. One shared pool with no
// per-target cap let 100 events to a hanging target hold every slot while a healthy target's events
// waited behind them. Here an origin may use the whole pool while no other origin is active, but
// while others are, it may hold only its share; above it, its events wait their turn (the worker
// re-queues them without counting an attempt), so the others keep flowing.
//
// An origin alone can only be stopped from taking slots it already holds, and a hanging target
// holds them until its time-out. So the worker takes a reserve of jobs beyond the pool: an origin
// never gets those, and through them the events of other origins are still seen and sent.
export interface FairShareOptions {
  /** Deliveries one origin alone may have in flight (DELIVERY_CONCURRENCY). */
  poolSize: number;
  /** Under contention, the part of the pool one origin may hold, in percent. */
  sharePercent: number;
  /** Jobs taken beyond the pool for other origins, in percent of the pool. */
  reservePercent: number;
  /** An origin counts as active this long after it last asked for a slot, in ms. */
  activeWindowMs: number;
  /** Shortest wait of an event that is not its origin's turn (DELIVERY_FAIR_WAIT_MS)... */
  waitMs: number;
  /** ...and longest: an origin that has freed no slot for long (a hanging target) is asked less often. */
  maxWaitMs: number;
  /** An origin that freed a slot this recently is flowing: its refused events wait for it instead. */
  flowingMs: number;
  now?: () => number;
  random?: () => number;
}

/**
 * `go`: a slot is taken; `wait`: the origin is at its limit but flowing, one of its own slots frees
 * soon; `defer`: not its turn, re-queue the event.
 */
export type Admission = 'go' | 'wait' | 'defer';

export interface FairShare {
  admit(origin: string): Admission;
  /**
   * A delivery of the origin ended. `answered: false` (a time-out, a refused connection): its slot is
   * free, but the origin did not answer, so it is not flowing and its stuck time keeps running.
   */
  release(origin: string, answered?: boolean): void;
  /** The most slots this origin may hold right now. */
  limitFor(origin: string): number;
  /** How long a deferred event of this origin should wait before it asks again. */
  waitFor(origin: string): number;
  /** Slots held above the share while origins contend (taken while alone, kept until they end). */
  excess(): number;
}

/** `alone` and `share`: the most one origin may hold; `jobs`: what the worker takes at once (pool and reserve). */
export function fairShareLimits(options: Pick<FairShareOptions, 'poolSize' | 'sharePercent' | 'reservePercent'>) {
  const share = Math.max(1, Math.floor((options.poolSize * options.sharePercent) / 100));
  const reserve = Math.ceil((options.poolSize * options.reservePercent) / 100);
  return { share, alone: options.poolSize, jobs: options.poolSize + reserve };
}

export function createFairShare(options: FairShareOptions): FairShare {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const limits = fairShareLimits(options);
  const inFlight = new Map<string, number>();
  const lastAsked = new Map<string, number>();
  // When each origin last answered a delivery (or took its first slot since it did)...
  const lastFreed = new Map<string, number>();
  // ...and when a delivery of it last really ended with an answer. A slot freed by a time-out says
  // nothing good of the origin: a hanging target behind a rule that retries with a short time-out
  // frees slots every few seconds, and counting those as flowing had its events held in job slots
  // ('wait') and asking again every `waitMs`, crowding other origins out of the worker.
  const lastEnded = new Map<string, number>();
  const forget = (origin: string) => {
    lastAsked.delete(origin);
    lastFreed.delete(origin);
    lastEnded.delete(origin);
  };

  // Another origin is active when it has deliveries in flight or asked within the window; origins
  // that are neither are forgotten here, so the map stays as small as the set of live targets.
  const othersActive = (origin: string, at: number): boolean => {
    for (const [other, askedAt] of lastAsked) {
      if (other === origin) continue;
      if ((inFlight.get(other) ?? 0) > 0 || at - askedAt < options.activeWindowMs) return true;
      forget(other);
    }
    return false;
  };

  return {
    admit(origin) {
      const at = now();
      lastAsked.set(origin, at);
      const held = inFlight.get(origin) ?? 0;
      const contended = othersActive(origin, at);
      if (held < (contended ? limits.share : limits.alone)) {
        inFlight.set(origin, held + 1);
        if (!lastFreed.has(origin)) lastFreed.set(origin, at);
        return 'go';
      }
      // A flowing origin frees a slot within moments: waiting for it beats a re-queue. One that
      // frees none (a hanging target) is re-queued at once, so other events reach the free slots.
      const ended = lastEnded.get(origin);
      return ended !== undefined && at - ended < options.flowingMs ? 'wait' : 'defer';
    },
    release(origin, answered = true) {
      const held = (inFlight.get(origin) ?? 0) - 1;
      if (held > 0) inFlight.set(origin, held);
      else inFlight.delete(origin);
      if (!answered) return;
      // An origin that answered and has nothing left in flight starts afresh; one still holding
      // slots is flowing. One that did not answer keeps its stuck time across its retries, until
      // the active window forgets it.
      if (held > 0) {
        const at = now();
        lastFreed.set(origin, at);
        lastEnded.set(origin, at);
      } else {
        lastFreed.delete(origin);
        lastEnded.delete(origin);
      }
    },
    limitFor(origin) {
      return othersActive(origin, now()) ? limits.share : limits.alone;
    },
    // An origin that frees slots often gets its turn soon: its events ask again after `waitMs`. One
    // that has answered none for a while (a hanging target, whose requests end only at the time-out,
    // however often a rule's policy retries them) would gain nothing from being asked every `waitMs`;
    // its events wait about as long as it has been stuck, up to `maxWaitMs`. Jitter spreads them out
    // so they never come back all at once.
    waitFor(origin) {
      const freed = lastFreed.get(origin);
      const stuckFor = freed === undefined ? 0 : now() - freed;
      const base = Math.min(options.maxWaitMs, Math.max(options.waitMs, stuckFor));
      return Math.round(base * (0.75 + random() / 2));
    },
    // A slot taken while its origin was alone stays held until its request ends: a hanging target
    // keeps the whole pool for up to the delivery time-out. The worker takes this many more jobs
    // meanwhile, so that the other origins get the pool minus that origin's share, as if it had
    // known from the start.
    excess() {
      const at = now();
      let active = 0;
      for (const [origin, askedAt] of lastAsked) {
        if ((inFlight.get(origin) ?? 0) > 0 || at - askedAt < options.activeWindowMs) active++;
        else forget(origin);
      }
      if (active < 2) return 0;
      let over = 0;
      for (const held of inFlight.values()) over += Math.max(0, held - limits.share);
      return over;
    },
  };
}

/** The unit of fairness: scheme, host and port of a target URL (the URL itself when it does not parse). */
export function targetOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
