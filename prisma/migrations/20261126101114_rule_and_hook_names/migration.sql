-- Rules and hooks gain names (issue 27): a rule's is unique in its organization, a hook's in its rule.
-- Existing rows are named as new ones are by default: a rule after its source, a hook after its trigger,
-- the second and later of one source (or trigger) in creation order with the first free -2, -3, ...
-- A suffixed name never equals another suffixed one (stripping "-<n>" gives back two different sources),
-- so only a source that is itself "<source>-<n>" can take one, and those are skipped.
ALTER TABLE providers ADD COLUMN name TEXT;
ALTER TABLE hooks ADD COLUMN name TEXT;

WITH ranked AS (
  SELECT id, organization_id, source,
    row_number() OVER (PARTITION BY organization_id, source ORDER BY created_at, id) AS k
  FROM providers
), free AS (
  SELECT r.id, r.k, r.source || '-' || j AS candidate, row_number() OVER (PARTITION BY r.id ORDER BY j) AS nth
  FROM ranked r
  CROSS JOIN LATERAL generate_series(2, r.k + (SELECT count(*) FROM providers o
    WHERE o.organization_id = r.organization_id)) AS j
  WHERE r.k > 1
    AND NOT EXISTS (SELECT 1 FROM providers o
      WHERE o.organization_id = r.organization_id AND o.source = r.source || '-' || j)
)
UPDATE providers p
SET name = coalesce((SELECT f.candidate FROM free f WHERE f.id = p.id AND f.nth = f.k - 1), p.source);

WITH ranked AS (
  SELECT id, row_number() OVER (PARTITION BY provider_id, trigger ORDER BY created_at, id) AS k FROM hooks
)
UPDATE hooks h SET name = CASE WHEN r.k = 1 THEN h.trigger::text ELSE h.trigger::text || '-' || r.k END
FROM ranked r WHERE r.id = h.id;

ALTER TABLE providers ALTER COLUMN name SET NOT NULL;
ALTER TABLE hooks ALTER COLUMN name SET NOT NULL;
CREATE UNIQUE INDEX "providers_organization_id_name_key" ON providers (organization_id, name);
CREATE UNIQUE INDEX "hooks_provider_id_name_key" ON hooks (provider_id, name);
