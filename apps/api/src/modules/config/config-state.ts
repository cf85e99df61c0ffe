import { createHash } from 'node:crypto';
import type { OrgId, OutboundHeaders } from '@relay/core';
import type { configDocumentSchema } from '@relay/contracts';
import type { DestinationRecord, HookRecord, RuleRecord, TransactionRepositories } from '@relay/db';
import type { z } from 'zod';

// An organization's configuration as the config module compares and exports it: the stored records, and each
// object's fields under the document's names, with every default spelled out so that a field left out of a
// document and a field set to its default compare equal.

export type ConfigDocument = z.output<typeof configDocumentSchema>;
export type DocumentRule = ConfigDocument['rules'][number];
export type DocumentDestination = DocumentRule['destinations'][number];
export type DocumentHook = DocumentRule['hooks'][number];

export interface StoredRule {
  rule: RuleRecord;
  destinations: DestinationRecord[];
  hooks: HookRecord[];
}

export interface StoredConfig {
  rules: StoredRule[];
  defaultTargetUrl: string | null;
  notifications: { url: string | null; secretSealed: string | null; secretHash: string | null };
}

type Repos = Pick<TransactionRepositories, 'rules' | 'destinations' | 'hooks' | 'organizations' | 'notifications'>;

export async function loadConfig(repos: Repos, orgId: OrgId): Promise<StoredConfig> {
  const rules = await repos.rules.list(orgId);
  const stored = await Promise.all(
    rules.map(async (rule) => ({
      rule,
      destinations: await repos.destinations.list(orgId, rule.id),
      hooks: await repos.hooks.list(orgId, rule.id),
    })),
  );
  const notifications = await repos.notifications.find(orgId);
  return {
    // By name: an export lists them in an order that does not change when a rule is edited.
    rules: stored.sort((a, b) => a.rule.name.localeCompare(b.rule.name)),
    defaultTargetUrl: await repos.organizations.defaultTarget(orgId),
    notifications: {
      url: notifications?.url ?? null,
      secretSealed: notifications?.secretSealed ?? null,
      secretHash: notifications?.secretHash ?? null,
    },
  };
}

/** Fields compared by value (secrets are compared through their hash, elsewhere). */
export type Fields = Record<string, unknown>;

const headersOf = (h: OutboundHeaders | undefined) => ({
  forward: h?.forward ?? [],
  set: h?.set ?? {},
  remove: h?.remove ?? [],
});

interface TransformPacingRecord {
  transform: string | null;
  forwardPathQuery: boolean;
  rateLimit: unknown;
  maxConcurrency: number | null;
}
const pacingOf = (r: TransformPacingRecord): Fields => ({
  transform: r.transform,
  forward_path_query: r.forwardPathQuery,
  rate_limit: r.rateLimit,
  max_concurrency: r.maxConcurrency,
});
interface TransformPacingInput {
  transform?: string | null | undefined;
  forward_path_query?: boolean | undefined;
  rate_limit?: unknown;
  max_concurrency?: number | null | undefined;
}
const pacingInput = (r: TransformPacingInput): Fields => ({
  transform: r.transform ?? null,
  forward_path_query: r.forward_path_query ?? false,
  rate_limit: r.rate_limit ?? null,
  max_concurrency: r.max_concurrency ?? null,
});

export const storedRuleFields = (r: RuleRecord): Fields => ({
  source: r.source,
  target_url: r.targetUrl,
  active: r.active,
  description: r.description,
  outbound_headers: headersOf(r.outboundHeaders),
  dedup: r.dedup,
  verification: r.verification,
  unhealthy_after_seconds: r.unhealthyAfterSeconds,
  ordering: r.ordering,
  delivery_policy: r.deliveryPolicy,
  filter: r.filter,
  ...pacingOf(r),
});

export const documentRuleFields = (r: DocumentRule): Fields => ({
  source: r.source,
  target_url: r.target_url,
  active: r.active,
  description: r.description ?? null,
  outbound_headers: headersOf(r.outbound_headers),
  dedup: r.dedup ?? null,
  verification: r.verification ?? null,
  unhealthy_after_seconds: r.unhealthy_after_seconds ?? null,
  ordering: r.ordering ?? null,
  delivery_policy: r.delivery_policy ?? null,
  filter: r.filter ?? null,
  ...pacingInput(r),
});

export const storedDestinationFields = (d: DestinationRecord): Fields => ({
  target_url: d.targetUrl,
  filter: d.filter,
  active: d.active,
  description: d.description,
  outbound_headers: headersOf(d.outboundHeaders),
  delivery_policy: d.deliveryPolicy,
  unhealthy_after_seconds: d.unhealthyAfterSeconds,
  ...pacingOf(d),
});

export const documentDestinationFields = (d: DocumentDestination): Fields => ({
  target_url: d.target_url,
  filter: d.filter ?? null,
  active: d.active,
  description: d.description ?? null,
  outbound_headers: headersOf(d.outbound_headers),
  delivery_policy: d.delivery_policy ?? null,
  unhealthy_after_seconds: d.unhealthy_after_seconds ?? null,
  ...pacingInput(d),
});

export const storedHookFields = (h: HookRecord): Fields => ({
  target_url: h.targetUrl,
  trigger: h.trigger,
  active: h.active,
  description: h.description,
});

export const documentHookFields = (h: DocumentHook): Fields => ({
  target_url: h.target_url,
  trigger: h.trigger,
  active: h.active,
  description: h.description ?? null,
});

/** JSON with sorted keys: stored JSON columns come back in Postgres' key order, documents in the writer's. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** How a plan and the audit show a transform: never its code (up to 256 KB), its size and hash. */
export const transformShown = (code: string | null) =>
  code === null
    ? null
    : `(transform, ${Buffer.byteLength(code)} bytes, sha256 ${createHash('sha256').update(code).digest('hex').slice(0, 12)})`;
