import type { ReplicaState } from '@relay/db';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SecretKind } from '../../auth/login-limiter';
import type { IdpCallbackErrorCode } from '../idp/idp-callback-failure';
import { registerReplicaMetrics } from './replica-metrics';

export interface ApiMetricsOptions {
  /** METRICS_ORGANIZATION_LABELS: ingest counters get an `organization` label (one series per organization). */
  organizationLabels: boolean;
  /** The process's Postgres pool (Prisma and raw pg share it). */
  pool: { totalCount: number; idleCount: number; waitingCount: number };
  /** Webhooks this process is storing now (INGEST_MAX_IN_FLIGHT bounds them). */
  ingestInFlight?: () => number;
  /** Open live streams (GET /api/events/stream) of this process. */
  sseSubscribers: () => number;
  /** The read replica's state (DATABASE_READ_URL); undefined: no replica, no replica metrics. */
  replica?: () => ReplicaState;
  /** Node's process metrics (CPU, memory, event loop, GC); off in tests that build many runtimes. */
  defaultMetrics?: boolean;
}

// Seconds; most webhooks are stored within a few milliseconds, a saturated database shows in the tail.
const INGEST_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// Rows per group-commit INSERT; INGEST_BATCH_MAX is at most 1,000.
const BATCH_SIZES = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/** Failed secret checks by what was guessed and why it failed (login-limiter.ts calls it). */
export type LoginFailureReason = 'wrong_secret' | 'limited';

// One registry per api process (runtime.ts), never prom-client's global one: tests run several
// api runtimes in one process. Every label has a bounded set of values: outcome, problem code,
// pool state; organization ids only when the operator asks for them.
export function createApiMetrics(options: ApiMetricsOptions) {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const ingestRequests = new Counter({
    name: 'relay_ingest_requests_total',
    help:
      "Webhooks answered by ingest: accepted (202, stored), duplicate (200, seen within its rule's window, " +
      'not stored) or refused, with the problem code as reason.',
    labelNames: options.organizationLabels ? ['outcome', 'reason', 'organization'] : ['outcome', 'reason'],
    registers,
  });
  const ingestDuration = new Histogram({
    name: 'relay_ingest_duration_seconds',
    help: 'Time from a webhook request reaching ingest to its answer, by outcome.',
    labelNames: ['outcome'],
    buckets: INGEST_SECONDS,
    registers,
  });
  const batchSize = new Histogram({
    name: 'relay_ingest_batch_size',
    help: 'Webhooks stored per group-commit INSERT.',
    buckets: BATCH_SIZES,
    registers,
  });
  const loginFailures = new Counter({
    name: 'relay_login_failures_total',
    help: 'Failed secret checks: a wrong password or token (wrong_secret) or an attempt over the limit (limited).',
    labelNames: ['kind', 'reason'],
    registers,
  });
  const idpCallbacksRejected = new Counter({
    name: 'relay_idp_callback_rejected_total',
    help:
      'Identity-provider callbacks that signed nobody in, by reason; no_login_in_progress and state_mismatch ' +
      '(no login of this browser to match, anyone can send one) are counted and logged, not audited.',
    labelNames: ['reason'],
    registers,
  });
  new Gauge({
    name: 'relay_db_pool_connections',
    help: "Connections of this process's Postgres pool: total, idle, and queries waiting for one (waiting).",
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'total' }, options.pool.totalCount);
      this.set({ state: 'idle' }, options.pool.idleCount);
      this.set({ state: 'waiting' }, options.pool.waitingCount);
    },
  });
  new Gauge({
    name: 'relay_sse_subscribers',
    help: 'Open live event streams (Server-Sent Events) on this api process.',
    registers,
    collect() {
      this.set(options.sseSubscribers());
    },
  });

  const inFlight = options.ingestInFlight;
  if (inFlight) {
    new Gauge({
      name: 'relay_ingest_in_flight',
      help:
        'Webhooks this api process is storing now; at INGEST_MAX_IN_FLIGHT the next is refused ' +
        '(503 ingest_overloaded).',
      registers,
      collect() {
        this.set(inFlight());
      },
    });
  }

  if (options.replica) registerReplicaMetrics(registry, options.replica);

  // The hot path binds its children once: counting an accepted webhook is then one addition.
  const accepted = options.organizationLabels ? undefined : ingestRequests.labels({ outcome: 'accepted' });
  const acceptedSeconds = ingestDuration.labels({ outcome: 'accepted' });
  const duplicateSeconds = ingestDuration.labels({ outcome: 'duplicate' });
  const refusedSeconds = ingestDuration.labels({ outcome: 'refused' });
  // Series that exist before the first event, so dashboards and alerts see zeros, not gaps.
  accepted?.inc(0);
  for (const kind of ['password', 'bootstrap'] satisfies SecretKind[]) {
    for (const reason of ['wrong_secret', 'limited'] satisfies LoginFailureReason[]) {
      loginFailures.labels({ kind, reason }).inc(0);
    }
  }
  for (const reason of ['no_login_in_progress', 'state_mismatch'] satisfies IdpCallbackErrorCode[]) {
    idpCallbacksRejected.labels({ reason }).inc(0);
  }

  return {
    registry,
    /** One answered ingest request: 202 is accepted, 200 a duplicate, anything else refused with its problem code. */
    ingestAnswered(status: number, code: string | undefined, seconds: number, organization: string | undefined): void {
      if (status === 202) {
        if (accepted) accepted.inc();
        else ingestRequests.inc({ outcome: 'accepted', organization: organization ?? 'unknown' });
        acceptedSeconds.observe(seconds);
        return;
      }
      if (status === 200) {
        if (options.organizationLabels) {
          ingestRequests.inc({ outcome: 'duplicate', organization: organization ?? 'unknown' });
        } else {
          ingestRequests.inc({ outcome: 'duplicate' });
        }
        duplicateSeconds.observe(seconds);
        return;
      }
      const reason = code ?? `http_${status}`;
      if (options.organizationLabels) {
        ingestRequests.inc({ outcome: 'refused', reason, organization: organization ?? 'unknown' });
      } else {
        ingestRequests.inc({ outcome: 'refused', reason });
      }
      refusedSeconds.observe(seconds);
    },
    /** One group-commit batch written (ingest.service.ts). */
    ingestBatch(size: number): void {
      batchSize.observe(size);
    },
    loginFailed(kind: SecretKind, reason: LoginFailureReason): void {
      loginFailures.inc({ kind, reason });
    },
    /** One identity-provider callback that signed nobody in (idp-login.service.ts). */
    idpCallbackRejected(reason: IdpCallbackErrorCode): void {
      idpCallbacksRejected.inc({ reason });
    },
  };
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;
