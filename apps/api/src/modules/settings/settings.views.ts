import type { OrganizationRecord } from '@relay/db';

/** The organization's own default target and the one deliveries without a provider use now. */
export function defaultTargetView(own: string | null, installDefault: string | undefined) {
  return {
    target_url: own,
    effective_target_url: own ?? installDefault ?? null,
    effective_from: own ? ('organization' as const) : installDefault ? ('install' as const) : null,
  };
}

/** Where providers send webhooks; without an organization, the base URL alone. */
export function endpointView(base: string, org: OrganizationRecord | null, urls: string[]) {
  const ingestUrl = urls[0] ?? `${base}/`;
  return {
    base_url: base,
    ingest_url: ingestUrl,
    source_url_template: `${ingestUrl}{source}`,
    organization: org ? { id: org.id, slug: org.slug } : null,
    ingest_urls: urls,
  };
}
