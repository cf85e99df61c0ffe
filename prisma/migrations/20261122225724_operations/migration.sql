-- Trigram search over events (pg_trgm is a trusted extension: the database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateEnum
CREATE TYPE "HookTrigger" AS ENUM ('provider_succeeded', 'provider_failed');

-- AlterTable
ALTER TABLE "delivery_attempts" ADD COLUMN     "hook_id" UUID;

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "acknowledged_at" TIMESTAMP(3),
ADD COLUMN     "run_start_attempt" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "search_text" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "default_target_url" TEXT;

-- CreateTable
CREATE TABLE "hooks" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "provider_id" UUID NOT NULL,
    "target_url" TEXT NOT NULL,
    "trigger" "HookTrigger" NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "description" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "hooks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "hooks_organization_id_provider_id_idx" ON "hooks"("organization_id", "provider_id");

-- CreateIndex
CREATE INDEX "delivery_attempts_organization_id_finished_at_idx" ON "delivery_attempts"("organization_id", "finished_at");

-- CreateIndex
CREATE INDEX "events_search_text_trgm_idx" ON "events" USING GIN ("search_text" gin_trgm_ops);

-- AddForeignKey
ALTER TABLE "hooks" ADD CONSTRAINT "hooks_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Existing events become searchable too.
UPDATE "events" SET "search_text" = "source" || ' ' || convert_from("body", 'UTF8') || ' ' || "headers"::text;
