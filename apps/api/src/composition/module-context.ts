import type { AccessRule, TargetPolicy } from '@relay/core';
import type { ReadRepositories, ReplicaState, Repositories } from '@relay/db';
import type { TransformRunner } from '@relay/transform';
import type { DeliveryQueue, FeedPublisher, RuleChangePublisher } from '@relay/queue';
import type { Tracer } from '@relay/service-kit';
import type { Logger } from 'pino';
import type { LoginLimiter } from '../auth/login-limiter';
import type { PasswordHasher } from '../auth/passwords';
import type { ApiConfig } from '../config';
import type { IngestService } from '../modules/ingest/ingest.service';
import type { InFlightLimit } from '../modules/ingest/in-flight-limit';
import type { ApiMetrics } from '../modules/metrics/api-metrics';
import type { Limits } from '../modules/limits/limits';
import type { HostResolver } from '../modules/platform/host-resolver';
import type { IngestHostSettings } from '../modules/platform/ingest-hosts';
import type { EventStreams } from '../modules/stream/event-stream';
import type { DomainVerifier } from '../modules/domains/dns-verifier';
import type { PacingStateReader } from '../modules/rules/pacing-state';

/** What the api process provides to its modules' services; runtime.ts builds it once. */
export interface ModuleContext {
  config: ApiConfig;
  logger: Logger;
  repositories: Repositories;
  /**
   * The reads a read replica may answer (history lists, search, details, stats, exports): on DATABASE_READ_URL's
   * replica while it keeps up, else on the primary. Reads of the caller's own write use `repositories`.
   */
  reads: ReadRepositories;
  queue: DeliveryQueue;
  feed: FeedPublisher;
  /** Rule changes workers must learn at once (their cached destinations). */
  ruleChanges: RuleChangePublisher;
  streams: EventStreams;
  ingest: IngestService;
  /** INGEST_MAX_IN_FLIGHT: the webhooks this process holds at once. */
  ingestInFlight: InFlightLimit;
  /** Traces (docs/observability.md): the no-op tracer unless an OTLP endpoint is set. */
  tracer: Tracer;
  /** The transform sandbox (transform-test, and the compile check of a transform at save). */
  transforms: TransformRunner;
  /** The workers' pacing state (Redis) one rule's or destination's read shows. */
  pacingState: PacingStateReader;
  /** This process's Prometheus registry and counters (modules/metrics). */
  metrics: ApiMetrics;
  /** Rate limits and the monthly quota (modules/limits). */
  limits: Limits;
  passwords: PasswordHasher;
  loginLimiter: LoginLimiter;
  targetPolicy: TargetPolicy;
  hosts: IngestHostSettings;
  /** The organization a Host header belongs to (refuses unknown hosts and suspended organizations). */
  organizationOf: HostResolver;
  /** Checks a custom domain's DNS records; undefined while INGEST_CANONICAL_HOST is unset. */
  verifyDomain: DomainVerifier | undefined;
  /** Readiness: each dependency's check, whether start-up work is done, and whether the process is shutting down. */
  readiness: {
    checks: Record<string, () => Promise<void>>;
    isStarted: () => boolean;
    isShuttingDown: () => boolean;
    /** The read replica's lag and where reads go (a detail of /ready, never a reason for 503); unset: no replica. */
    replica?: () => ReplicaState;
  };
  /**
   * What the route catalog says, computed by the composition root (runtime.ts) and passed in: services
   * cannot import the catalog, which imports every module's operations and so every service.
   */
  catalog: CatalogFacts;
  /** Tests: the clock rule options follow (deduplication windows); absent: the real one. */
  now?: () => Date;
}

export interface CatalogFacts {
  /** First path segments of the relay's own routes: never a webhook source. */
  reservedSegments: ReadonlySet<string>;
  /** The access rule of every guarded operation (the authorization table's rows). */
  accessRules: readonly AccessRule[];
  /** Builds the OpenAPI document of every operation (GET /openapi.json builds it once, when first asked). */
  openApiDocument: () => unknown;
}
