CREATE TABLE relay_saved_functions AS SELECT DISTINCT pg_get_functiondef(p.oid) AS def FROM pg_depend d
  JOIN pg_proc p ON p.oid = d.objid AND d.classid = 'pg_proc'::regclass JOIN pg_type t ON t.oid = d.refobjid
  WHERE t.typrelid IN ('events'::regclass, 'deliveries'::regclass, 'delivery_attempts'::regclass);
ALTER TABLE event_search_pending DROP CONSTRAINT event_search_pending_event_id_fkey;
ALTER TABLE event_ordering DROP CONSTRAINT event_ordering_event_id_fkey;
DROP TABLE deliveries, delivery_attempts, event_search_keys, event_search_escaped, events CASCADE;
CREATE TABLE events (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    source text NOT NULL,
    provider_id uuid,
    target_url text,
    body bytea NOT NULL,
    headers jsonb NOT NULL,
    status public."EventStatus" DEFAULT 'queued'::public."EventStatus" NOT NULL,
    attempt_count integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp(3) without time zone,
    failure_reason text,
    last_error text,
    created_at timestamp(3) without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp(3) without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    delivered_at timestamp(3) without time zone,
    acknowledged_at timestamp(3) without time zone,
    run_start_attempt integer DEFAULT 0 NOT NULL,
    path text DEFAULT ''::text NOT NULL,
    query jsonb DEFAULT '{}'::jsonb NOT NULL,
    transformed_body bytea,
    transformed_headers jsonb,
    transform_logs text,
    transformed_path text
) PARTITION BY RANGE (id);
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id);
CREATE TABLE deliveries (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    event_id uuid NOT NULL,
    destination_id uuid NOT NULL,
    status public."DeliveryStatus" DEFAULT 'queued'::public."DeliveryStatus" NOT NULL,
    attempt_count integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp(3) without time zone,
    failure_reason text,
    last_error text,
    delivered_at timestamp(3) without time zone,
    created_at timestamp(3) without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp(3) without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    acknowledged_at timestamp(3) without time zone,
    run_start_attempt integer DEFAULT 0 NOT NULL,
    ordering_key text,
    transformed_body bytea,
    transformed_headers jsonb,
    transform_logs text,
    transformed_path text
) PARTITION BY RANGE (event_id);
ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id, event_id);
CREATE TABLE delivery_attempts (
    id uuid NOT NULL,
    event_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    attempt_number integer NOT NULL,
    kind public."AttemptKind" DEFAULT 'main'::public."AttemptKind" NOT NULL,
    target_url text NOT NULL,
    response_status integer,
    response_body text,
    error text,
    duration_ms integer NOT NULL,
    started_at timestamp(3) without time zone NOT NULL,
    finished_at timestamp(3) without time zone NOT NULL,
    hook_id uuid,
    destination_id uuid
) PARTITION BY RANGE (event_id);
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_pkey PRIMARY KEY (id, event_id);
CREATE TABLE event_search_keys (
    event_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    chunk_id bigint NOT NULL,
    keys integer[]
) PARTITION BY RANGE (event_id);
ALTER TABLE event_search_keys ADD CONSTRAINT event_search_keys_pkey PRIMARY KEY (event_id);
CREATE TABLE event_search_escaped (
    event_id uuid NOT NULL
);
ALTER TABLE event_search_escaped ADD CONSTRAINT event_search_escaped_pkey PRIMARY KEY (event_id);
CREATE INDEX deliveries_destination_id_status_ordering_key_event_id_idx ON deliveries USING btree (destination_id, status, ordering_key, event_id);
CREATE UNIQUE INDEX deliveries_event_id_destination_id_key ON deliveries USING btree (event_id, destination_id);
CREATE INDEX deliveries_organization_id_updated_at_idx ON deliveries USING btree (organization_id, updated_at);
CREATE INDEX deliveries_status_next_attempt_at_idx ON deliveries USING btree (status, next_attempt_at);
CREATE INDEX delivery_attempts_destination_id_idx ON delivery_attempts USING btree (destination_id);
CREATE INDEX delivery_attempts_event_id_started_at_idx ON delivery_attempts USING btree (event_id, started_at);
CREATE INDEX delivery_attempts_organization_id_finished_at_idx ON delivery_attempts USING btree (organization_id, finished_at);
CREATE INDEX event_search_keys_keys_idx ON event_search_keys USING gin (keys);
CREATE INDEX events_organization_id_created_at_idx ON events USING btree (organization_id, created_at DESC);
CREATE INDEX events_organization_id_provider_id_created_at_idx ON events USING btree (organization_id, provider_id, created_at DESC);
CREATE INDEX events_organization_id_source_created_at_idx ON events USING btree (organization_id, source, created_at DESC);
CREATE INDEX events_organization_id_status_created_at_idx ON events USING btree (organization_id, status, created_at DESC);
CREATE INDEX events_organization_id_updated_at_idx ON events USING btree (organization_id, updated_at);
CREATE INDEX events_status_next_attempt_at_idx ON events USING btree (status, next_attempt_at);
CREATE TRIGGER events_unindex_deleted AFTER DELETE ON public.events REFERENCING OLD TABLE AS deleted_events FOR EACH STATEMENT EXECUTE FUNCTION public.relay_unindex_deleted_events();
ALTER TABLE deliveries ADD CONSTRAINT deliveries_destination_id_fkey FOREIGN KEY (destination_id) REFERENCES destinations(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_destination_id_fkey FOREIGN KEY (destination_id) REFERENCES destinations(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE event_search_escaped ADD CONSTRAINT event_search_escaped_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE event_search_keys ADD CONSTRAINT event_search_keys_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE events ADD CONSTRAINT events_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE event_search_pending ADD CONSTRAINT event_search_pending_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE event_ordering ADD CONSTRAINT event_ordering_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON UPDATE CASCADE ON DELETE CASCADE;
CREATE FUNCTION relay_uuid7_floor(at timestamptz) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT (regexp_replace(lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0'), '^(.{8})(.{4})$', '\1-\2')
    || '-0000-0000-000000000000')::uuid
$$;
DO $$
DECLARE d date; t text; lo uuid; hi uuid;
BEGIN
  FOR d IN SELECT generate_series(current_date - 4, current_date + 1, '1 day')::date LOOP
    lo := relay_uuid7_floor(d::timestamp AT TIME ZONE 'UTC');
    hi := relay_uuid7_floor((d + 1)::timestamp AT TIME ZONE 'UTC');
    FOREACH t IN ARRAY ARRAY['events', 'deliveries', 'delivery_attempts', 'event_search_keys'] LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', t || '_p' || to_char(d, 'YYYYMMDD'), t, lo, hi);
    END LOOP;
  END LOOP;
END $$;
DO $$
DECLARE f text;
BEGIN
  FOR f IN SELECT def FROM relay_saved_functions LOOP EXECUTE f; END LOOP;
END $$;
DROP TABLE relay_saved_functions;
DO $$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND p.proname LIKE 'relay\_%' AND p.prokind = 'f' AND p.prolang <> 12 LOOP
    EXECUTE format('ALTER FUNCTION %s SET plan_cache_mode = force_custom_plan', f);
  END LOOP;
END $$;
