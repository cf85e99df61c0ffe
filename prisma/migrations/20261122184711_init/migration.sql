-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "EventStatus" AS ENUM ('queued', 'delivered', 'failed');

-- CreateEnum
CREATE TYPE "AttemptKind" AS ENUM ('main', 'hook');

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "providers" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "target_url" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "description" TEXT,
    "signing_secret" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "providers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "provider_id" UUID,
    "target_url" TEXT,
    "body" BYTEA NOT NULL,
    "headers" JSONB NOT NULL,
    "status" "EventStatus" NOT NULL DEFAULT 'queued',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3),
    "failure_reason" TEXT,
    "last_error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMP(3),

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_attempts" (
    "id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "attempt_number" INTEGER NOT NULL,
    "kind" "AttemptKind" NOT NULL DEFAULT 'main',
    "target_url" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_body" TEXT,
    "error" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "started_at" TIMESTAMP(3) NOT NULL,
    "finished_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "organizations_slug_key" ON "organizations"("slug");

-- CreateIndex
CREATE INDEX "providers_organization_id_source_active_idx" ON "providers"("organization_id", "source", "active");

-- CreateIndex
CREATE INDEX "events_organization_id_created_at_idx" ON "events"("organization_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "events_organization_id_status_created_at_idx" ON "events"("organization_id", "status", "created_at" DESC);

-- CreateIndex
CREATE INDEX "events_organization_id_source_created_at_idx" ON "events"("organization_id", "source", "created_at" DESC);

-- CreateIndex
CREATE INDEX "events_status_next_attempt_at_idx" ON "events"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "delivery_attempts_event_id_started_at_idx" ON "delivery_attempts"("event_id", "started_at");

-- AddForeignKey
ALTER TABLE "providers" ADD CONSTRAINT "providers_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The default organization, so a single-tenant install works with no setup (id fixed in @relay/core).
INSERT INTO "organizations" ("id", "slug", "name", "updated_at")
VALUES ('00000000-0000-7000-8000-000000000001', 'default', 'Default organization', CURRENT_TIMESTAMP)
ON CONFLICT DO NOTHING;
