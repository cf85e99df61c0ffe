// The settings answers as the dashboard reads them: GET /config/endpoint, /config/default-target, /api/organization.

export interface Endpoint {
  base_url: string;
  ingest_url: string | null;
  source_url_template: string | null;
  reserved_sources: string[];
  organization: { id: string; slug: string } | null;
  ingest_urls: string[];
}

export interface DefaultTarget {
  target_url: string | null;
  effective_target_url: string | null;
  effective_from: 'organization' | 'install' | null;
}

export interface Organization {
  id: string;
  slug: string;
  name: string;
}
