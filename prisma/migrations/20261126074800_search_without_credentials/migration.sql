-- The search text used to hold every stored header, so `GET /events?search=` found an event by the value of a
-- credential (Authorization, X-Api-Key, ...) its readers see masked. The indexer now leaves the sensitive headers
-- out (SENSITIVE_HEADERS). Indexed events that carry one of the built-in names go back to pending: searches match
-- them through the new search text at once, and the workers index them again without the credential. (Names an
-- operator adds later are re-indexed the same way: docs/security.md.)
WITH moved AS (
    DELETE FROM "event_search" s USING "events" e
    WHERE e."id" = s."event_id"
      AND jsonb_typeof(e."headers") = 'object'
      AND e."headers" ?| ARRAY['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'apikey', 'x-apikey',
        'x-auth-token', 'x-access-token', 'x-token', 'x-secret', 'x-client-secret', 'x-webhook-secret',
        'x-webhook-token', 'x-hook-secret', 'x-gitlab-token']
    RETURNING s."event_id", s."organization_id"
)
INSERT INTO "event_search_pending" ("event_id", "organization_id")
SELECT "event_id", "organization_id" FROM moved
ON CONFLICT ("event_id") DO NOTHING;
