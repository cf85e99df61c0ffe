-- Rule options (issue 18): deduplication, inbound verification, endpoint health (and the paused
-- event status), ordered delivery, per-rule delivery policy, organization notifications. Every new
-- rule column is null or a default that changes nothing: an upgrade turns no option on.

-- CreateEnum
CREATE TYPE "RuleHealth" AS ENUM ('healthy', 'unhealthy');

-- AlterEnum
ALTER TYPE "EventStatus" ADD VALUE 'paused';

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "failure_digest_until" TIMESTAMP(3),
ADD COLUMN     "notification_secret" TEXT,
ADD COLUMN     "notification_url" TEXT;

-- AlterTable
ALTER TABLE "providers" ADD COLUMN     "dedup" JSONB,
ADD COLUMN     "delivery_policy" JSONB,
ADD COLUMN     "duplicate_count" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "failing_since" TIMESTAMP(3),
ADD COLUMN     "health" "RuleHealth" NOT NULL DEFAULT 'healthy',
ADD COLUMN     "last_signature_failure_at" TIMESTAMP(3),
ADD COLUMN     "ordering" JSONB,
ADD COLUMN     "previous_verification_expires_at" TIMESTAMP(3),
ADD COLUMN     "previous_verification_secret" TEXT,
ADD COLUMN     "signature_failure_count" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "unhealthy_after_seconds" INTEGER,
ADD COLUMN     "unhealthy_reason" TEXT,
ADD COLUMN     "unhealthy_since" TIMESTAMP(3),
ADD COLUMN     "verification" JSONB,
ADD COLUMN     "verification_secret" TEXT;

-- CreateTable
CREATE TABLE "event_dedup" (
    "organization_id" UUID NOT NULL,
    "provider_id" UUID NOT NULL,
    "dedup_key" TEXT NOT NULL,
    "event_id" UUID NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "event_dedup_pkey" PRIMARY KEY ("organization_id","provider_id","dedup_key")
);

-- CreateTable
CREATE TABLE "event_ordering" (
    "event_id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "provider_id" UUID NOT NULL,
    "ordering_key" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_ordering_pkey" PRIMARY KEY ("event_id")
);

-- CreateIndex
CREATE INDEX "event_dedup_expires_at_idx" ON "event_dedup"("expires_at");

-- CreateIndex
CREATE INDEX "event_ordering_organization_id_provider_id_ordering_key_eve_idx" ON "event_ordering"("organization_id", "provider_id", "ordering_key", "event_id");

-- AddForeignKey
ALTER TABLE "event_dedup" ADD CONSTRAINT "event_dedup_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_ordering" ADD CONSTRAINT "event_ordering_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
