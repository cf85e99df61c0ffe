import type { TransactionClient } from './client';
import type { Database } from './database';
import { createAccountRepository } from './repositories/account.repository';
import { createAttemptRepository } from './repositories/attempt.repository';
import { createAuditRepository } from './repositories/audit.repository';
import { createCredentialRepository } from './repositories/credential.repository';
import { createDomainRepository } from './repositories/domain.repository';
import { createDeliveryActionRepository } from './repositories/delivery-action.repository';
import { createDeliveryRepository } from './repositories/delivery.repository';
import { createDestinationRepository } from './repositories/destination.repository';
import { createEventActionRepository } from './repositories/event-action.repository';
import { createEventQueryRepository } from './repositories/event-query.repository';
import { createEventDedupRepository } from './repositories/event-dedup.repository';
import { createEventOrderingRepository } from './repositories/event-ordering.repository';
import { createEventSweepRepository } from './repositories/event-sweep.repository';
import { createEventRepository, type EventRepositoryOptions } from './repositories/event.repository';
import { createFeedReplayRepository } from './repositories/feed-replay.repository';
import { createHookRepository } from './repositories/hook.repository';
import { createIdentityRepository } from './repositories/identity.repository';
import { createIdentityProviderRepository } from './repositories/identity-provider.repository';
import { createNotificationSettingsRepository } from './repositories/notification.repository';
import { createOffboardingRepository } from './repositories/offboarding.repository';
import { createOperatorRepository } from './repositories/operator.repository';
import { createOrganizationRepository } from './repositories/organization.repository';
import { createPlatformRepository } from './repositories/platform.repository';
import { createRuleRepository } from './repositories/rule.repository';
import { createRuleHealthRepository } from './repositories/rule-health.repository';
import { createStatsRepository } from './repositories/stats.repository';
import { createTransformedBodyRepository } from './repositories/transformed-body.repository';
import { createUserRepository } from './repositories/user.repository';

/** The repositories written with Prisma; they run on the client or inside a service's transaction. */
function prismaRepositories(client: Database['prisma'] | TransactionClient) {
  return {
    accounts: createAccountRepository(client),
    attempts: createAttemptRepository(client),
    audit: createAuditRepository(client),
    credentials: createCredentialRepository(client),
    domains: createDomainRepository(client),
    destinations: createDestinationRepository(client),
    sweep: createEventSweepRepository(client),
    hooks: createHookRepository(client),
    identities: createIdentityRepository(client),
    identityProviders: createIdentityProviderRepository(client),
    notifications: createNotificationSettingsRepository(client),
    operators: createOperatorRepository(client),
    organizations: createOrganizationRepository(client),
    platform: createPlatformRepository(client),
    rules: createRuleRepository(client),
    users: createUserRepository(client),
  };
}

export type TransactionRepositories = ReturnType<typeof prismaRepositories>;

// One place decides how each repository reaches Postgres: raw `pg` on the hot and query paths
// (ingest, event queries and actions, stats, feed replay), Prisma everywhere else.
export interface RepositoryOptions extends EventRepositoryOptions {
  /** Header names a search does not match (SENSITIVE_HEADERS); the built-in list when left out. */
  sensitiveHeaders?: readonly string[];
}

export function createRepositories(db: Database, options: RepositoryOptions) {
  return {
    ...prismaRepositories(db.prisma),
    events: createEventRepository(db.pool, options),
    eventQueries: createEventQueryRepository(db.pool, options.sensitiveHeaders),
    eventActions: createEventActionRepository(db.pool, options.sensitiveHeaders),
    /** Idempotent ingest (rule option `dedup`): a key's claim and its event in one transaction. */
    eventDedup: createEventDedupRepository(db.pool, createEventRepository(db.pool, options)),
    /** Ordered delivery (rule option `ordering`): the blocked keys of a rule. */
    eventOrdering: createEventOrderingRepository(db.pool),
    stats: createStatsRepository(db.pool),
    /** Routing's destination deliveries (an event's, on its detail). */
    deliveries: createDeliveryRepository(db.pool),
    /** Retry and acknowledge of one destination's deliveries (the events API's `destination_id`). */
    deliveryActions: createDeliveryActionRepository(db.pool, options.sensitiveHeaders),
    /** The transformed bodies deliveries sent (issue 30): the primary's on its event, a destination's on its delivery. */
    transformedBodies: createTransformedBodyRepository(db.pool),
    ruleHealth: createRuleHealthRepository(db.pool),
    feedReplay: createFeedReplayRepository(db.pool),
    offboarding: createOffboardingRepository(db.pool),
    /** Runs `work` in one transaction: a write and its audit entry commit together or not at all. */
    transaction<T>(work: (tx: TransactionRepositories) => Promise<T>): Promise<T> {
      return db.prisma.$transaction((tx) => work(prismaRepositories(tx)));
    },
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
