import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';

export interface IngestHostSettings {
  /** INGEST_CANONICAL_HOST, lowercase without port; unset: single-tenant, every host is the default organization's. */
  canonicalHost: string | undefined;
  /** PUBLIC_BASE_URL: its scheme (and, without a canonical host, its address) make the public URLs. */
  publicBaseUrl: string;
}

/** `Host` without port and trailing dot, lowercase. */
export function normaliseHost(host: string): string {
  const bare = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  return bare.replace(/\.$/, '').toLowerCase();
}

/**
 * The public ingest URLs of an organization: its slug host, its active custom domains, and the base host for
 * the default one.
 */
export function ingestUrlsOf(
  settings: IngestHostSettings,
  org: { id: OrgId; slug: string },
  activeDomains: readonly string[],
): string[] {
  const base = new URL(settings.publicBaseUrl);
  const port = base.port ? `:${base.port}` : '';
  const at = (host: string) => `${base.protocol}//${host}${port}/`;
  if (!settings.canonicalHost) return org.id === DEFAULT_ORGANIZATION_ID ? [`${base.origin}/`] : [];
  const urls = [
    at(`${org.slug}.${settings.canonicalHost}`),
    ...activeDomains.map((domain) => `${base.protocol}//${domain}/`),
  ];
  return org.id === DEFAULT_ORGANIZATION_ID ? [at(settings.canonicalHost), ...urls] : urls;
}
