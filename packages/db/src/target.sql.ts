// The target rule of the spec, in one place: the oldest active rule of the event's
// organization and source, else the organization's default target, else the install-wide default.
// Used by the ingest insert (so selecting a target costs no extra round trip) and by the resolver the
// worker uses for events stored without one.
// Expects a row source `u` with organization_id and source; yields `p.id`, `p.target_url` and
// `org.default_target_url`.
export const ACTIVE_RULE_JOIN = `
LEFT JOIN LATERAL (
  SELECT pr.id, pr.target_url FROM providers pr
  WHERE pr.organization_id = u.organization_id AND pr.source = u.source AND pr.active
  ORDER BY pr.created_at, pr.id
  LIMIT 1
) p ON TRUE
LEFT JOIN organizations org ON org.id = u.organization_id`;

export const RESOLVE_TARGETS = `
SELECT u.organization_id, u.source, p.id AS provider_id,
  coalesce(p.target_url, org.default_target_url, $3) AS target_url
FROM unnest($1::uuid[], $2::text[]) AS u(organization_id, source)
${ACTIVE_RULE_JOIN}`;
