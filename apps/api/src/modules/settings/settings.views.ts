import type { OrganizationRecord } from '@relay/db';

/** The organization's own default target and the one deliveries without a rule use now. */
export function defaultTargetView(own: string | null, installDefault: string | undefined) {
  return {
    target_url: own,
    effective_target_url: own ?? installDefault ?? null,
    effective_from: own ? ('organization' as const) : installDefault ? ('install' as const) : null,
  };
}

/**
 * Where senders send webhooks: only URLs that accept them (`urls`, possibly none), and the path
 * segments a source cannot take.
 */
export function endpointView(
  base: string,
  org: OrganizationRecord | null,
  urls: string[],
  reservedSources: ReadonlySet<string>,
) {
  const ingestUrl = urls[0] ?? null;
  return {
    base_url: base,
    ingest_url: ingestUrl,
    source_url_template: ingestUrl === null ? null : `${ingestUrl}{source}`,
    reserved_sources: [...reservedSources].filter((segment) => segment !== '').sort(),
    organization: org ? { id: org.id, slug: org.slug } : null,
    ingest_urls: urls,
  };
}
