import {
  firstFreeName,
  type DeliveryPolicyOption,
  type OrgId,
  type OutboundHeaders,
  type RateLimitOption,
  type RuleHealthState,
  type UnhealthyReason,
} from '@relay/core';
import { atomically, type DbClient, type TransactionClient } from '../client';
import { DbNull } from '../generated/prisma/internal/prismaNamespace';
import type { DeliveryChange } from './delivery-change';
import { outboundOf } from './rule.repository';

/** At most this many destinations per rule (docs/routing.md, "Destinations"). */
export const MAX_DESTINATIONS_PER_RULE = 20;

export interface DestinationRecord {
  id: string;
  organizationId: OrgId;
  ruleId: string;
  /** Unique in the rule. */
  name: string;
  targetUrl: string;
  /** Routing filter (docs/routing.md), as saved through the API's checked schema; null: every webhook goes. */
  filter: Record<string, unknown> | null;
  active: boolean;
  description: string | null;
  /** Sealed (secret-box in core); never shown. Null: DEFAULT_SIGNING_SECRET, else unsigned. */
  signingSecret: string | null;
  /** Keyed hash of the signing secret (core secret-hash.ts); null: none kept. */
  signingSecretHash: string | null;
  outboundHeaders: OutboundHeaders;
  deliveryPolicy: DeliveryPolicyOption | null;
  unhealthyAfterSeconds: number | null;
  health: RuleHealthState;
  unhealthyReason: UnhealthyReason | null;
  unhealthySince: Date | null;
  failingSince: Date | null;
  /** As the rule's (docs/transformations.md, docs/rules.md "Pacing"): null when off. */
  transform: string | null;
  forwardPathQuery: boolean;
  rateLimit: RateLimitOption | null;
  maxConcurrency: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewDestination {
  /** Unique in the rule; when left out, the target's host (suffixed -2, -3, ... when taken). */
  name?: string;
  targetUrl: string;
  filter?: Record<string, unknown> | null;
  active?: boolean;
  description?: string | null;
  signingSecret?: string | null;
  signingSecretHash?: string | null;
  outboundHeaders?: OutboundHeaders;
  deliveryPolicy?: DeliveryPolicyOption | null;
  unhealthyAfterSeconds?: number | null;
  transform?: string | null;
  forwardPathQuery?: boolean;
  rateLimit?: RateLimitOption | null;
  maxConcurrency?: number | null;
}

export type DestinationChanges = Partial<NewDestination>;

/** A write refused: the name is taken in the rule, the rule has its maximum, or no such rule. */
export type DestinationWrite =
  | { ok: true; destination: DestinationRecord }
  | { ok: false; conflict: 'destination_name_taken' | 'destination_limit_reached' | 'not_found' };

type Row = Omit<
  DestinationRecord,
  'organizationId' | 'filter' | 'outboundHeaders' | 'deliveryPolicy' | 'unhealthyReason' | 'rateLimit'
> & {
  organizationId: string;
  filter: unknown;
  outboundHeaders: unknown;
  deliveryPolicy: unknown;
  rateLimit: unknown;
  unhealthyReason: string | null;
};

const objectOf = <T>(value: unknown): T | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as T) : null;

export const toDestinationRecord = (row: Row): DestinationRecord => ({
  ...row,
  organizationId: row.organizationId as OrgId,
  filter: objectOf<Record<string, unknown>>(row.filter),
  outboundHeaders: outboundOf(row.outboundHeaders),
  deliveryPolicy: objectOf<DeliveryPolicyOption>(row.deliveryPolicy),
  rateLimit: objectOf<RateLimitOption>(row.rateLimit),
  unhealthyReason: row.unhealthyReason as UnhealthyReason | null,
});

const jsonOf = (value: object | null | undefined) =>
  value === undefined ? undefined : value === null ? DbNull : { ...value };

function toData({ filter, deliveryPolicy, outboundHeaders, rateLimit, ...rest }: DestinationChanges) {
  return {
    ...rest,
    ...(rateLimit !== undefined ? { rateLimit: jsonOf(rateLimit) } : {}),
    ...(filter !== undefined ? { filter: jsonOf(filter) } : {}),
    ...(deliveryPolicy !== undefined ? { deliveryPolicy: jsonOf(deliveryPolicy) } : {}),
    ...(outboundHeaders !== undefined ? { outboundHeaders: { ...outboundHeaders } } : {}),
  };
}

/** The default name of a destination: its target's host. */
export function defaultDestinationName(targetUrl: string): string {
  try {
    return new URL(targetUrl).hostname || 'destination';
  } catch {
    return 'destination';
  }
}

// Writes that name or add a destination serialize on the rule's lock, so the default name and the limit are
// decided from what is really there, and a clash is an answer, not a 500.
async function siblings(tx: TransactionClient, orgId: OrgId, ruleId: string, exceptId: string | null) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`destination:${ruleId}`}))`;
  return tx.destination.findMany({
    where: { organizationId: orgId, ruleId, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { name: true },
  });
}

// Destinations of one rule. Every statement names the organization as well as the rule, so a rule id
// from another organization finds nothing.
export function createDestinationRepository(prisma: DbClient) {
  return {
    list: async (orgId: OrgId, ruleId: string): Promise<DestinationRecord[]> =>
      (
        await prisma.destination.findMany({ where: { organizationId: orgId, ruleId }, orderBy: { createdAt: 'asc' } })
      ).map(toDestinationRecord),

    findById: async (orgId: OrgId, ruleId: string, id: string): Promise<DestinationRecord | null> => {
      const row = await prisma.destination.findFirst({ where: { id, organizationId: orgId, ruleId } });
      return row ? toDestinationRecord(row) : null;
    },

    /** What a rule's fan-out reads: its active destinations (cached by the worker). */
    active: async (orgId: OrgId, ruleId: string): Promise<DestinationRecord[]> =>
      (
        await prisma.destination.findMany({
          where: { organizationId: orgId, ruleId, active: true },
          orderBy: { createdAt: 'asc' },
        })
      ).map(toDestinationRecord),

    create: (orgId: OrgId, ruleId: string, data: NewDestination): Promise<DestinationWrite> =>
      atomically(prisma, async (tx) => {
        const rule = await tx.rule.findFirst({ where: { id: ruleId, organizationId: orgId }, select: { id: true } });
        if (!rule) return { ok: false, conflict: 'not_found' } as const;
        const others = await siblings(tx, orgId, ruleId, null);
        if (others.length >= MAX_DESTINATIONS_PER_RULE)
          return { ok: false, conflict: 'destination_limit_reached' } as const;
        const taken = new Set(others.map((d) => d.name));
        if (data.name !== undefined && taken.has(data.name))
          return { ok: false, conflict: 'destination_name_taken' } as const;
        const name = data.name ?? firstFreeName(defaultDestinationName(data.targetUrl), taken);
        const row = await tx.destination.create({
          data: { ...toData(data), targetUrl: data.targetUrl, name, organizationId: orgId, ruleId },
        });
        return { ok: true, destination: toDestinationRecord(row) } as const;
      }),

    /** not_found when the rule has no such destination. */
    update: (orgId: OrgId, ruleId: string, id: string, changes: DestinationChanges): Promise<DestinationWrite> =>
      atomically(prisma, async (tx) => {
        if (changes.name !== undefined) {
          const others = await siblings(tx, orgId, ruleId, id);
          if (others.some((d) => d.name === changes.name))
            return { ok: false, conflict: 'destination_name_taken' } as const;
        }
        const { count } = await tx.destination.updateMany({
          where: { id, organizationId: orgId, ruleId },
          data: toData(changes),
        });
        if (count === 0) return { ok: false, conflict: 'not_found' } as const;
        const row = await tx.destination.findFirstOrThrow({ where: { id, organizationId: orgId } });
        return { ok: true, destination: toDestinationRecord(row) } as const;
      }),

    /**
     * Healthy again (reason, since and the failing run cleared) and its paused deliveries queued, due now, each
     * starting a new run (a fresh attempt budget, as a resumed event's); null: no such destination. The destination row is written first: a fan-out reads it FOR SHARE, so a
     * delivery it pauses meanwhile either commits before this (and is released here) or sees it healthy.
     */
    resume: (orgId: OrgId, ruleId: string, id: string): Promise<{ resumed: DeliveryChange[] } | null> =>
      atomically(prisma, async (tx) => {
        const { count } = await tx.destination.updateMany({
          where: { id, organizationId: orgId, ruleId },
          data: { health: 'healthy', unhealthyReason: null, unhealthySince: null, failingSince: null },
        });
        if (count === 0) return null;
        const rows = await tx.$queryRaw<{ id: string; event_id: string; attempt_count: number }[]>`
          UPDATE deliveries SET status = 'queued', run_start_attempt = attempt_count,
            next_attempt_at = now() AT TIME ZONE 'UTC', failure_reason = NULL, last_error = NULL,
            updated_at = now() AT TIME ZONE 'UTC', transformed_body = NULL, transformed_headers = NULL,
            transformed_path = NULL, transform_logs = NULL
          WHERE organization_id = ${orgId}::uuid AND destination_id = ${id}::uuid AND status = 'paused'
          RETURNING id, event_id, attempt_count`;
        return {
          resumed: rows.map((r) => ({
            id: r.id,
            eventId: r.event_id,
            destinationId: id,
            attemptCount: r.attempt_count,
          })),
        };
      }),

    /** Deletes the destination with its deliveries and their attempts (cascades); false: no such destination. */
    async delete(orgId: OrgId, ruleId: string, id: string): Promise<boolean> {
      return (await prisma.destination.deleteMany({ where: { id, organizationId: orgId, ruleId } })).count > 0;
    },
  };
}

export type DestinationRepository = ReturnType<typeof createDestinationRepository>;
