-- Per-organization overrides of the install-wide production limits. Null everywhere means the
-- setting applies, so an upgrade changes no organization's behaviour.
ALTER TABLE "organizations" ADD COLUMN "api_rate_limit" INTEGER,
ADD COLUMN "ingest_rate_limit" INTEGER,
ADD COLUMN "retention_days" INTEGER;
