-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('queued', 'delivered', 'failed', 'paused');

-- AlterEnum
ALTER TYPE "AttemptKind" ADD VALUE 'destination';

-- AlterTable
ALTER TABLE "delivery_attempts" ADD COLUMN     "destination_id" UUID;

-- CreateTable
CREATE TABLE "destinations" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "provider_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "target_url" TEXT NOT NULL,
    "filter" JSONB,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "description" TEXT,
    "signing_secret" TEXT,
    "outbound_headers" JSONB NOT NULL DEFAULT '{}',
    "delivery_policy" JSONB,
    "unhealthy_after_seconds" INTEGER,
    "health" "RuleHealth" NOT NULL DEFAULT 'healthy',
    "unhealthy_reason" TEXT,
    "unhealthy_since" TIMESTAMP(3),
    "failing_since" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "destinations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deliveries" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "destination_id" UUID NOT NULL,
    "status" "DeliveryStatus" NOT NULL DEFAULT 'queued',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3),
    "failure_reason" TEXT,
    "last_error" TEXT,
    "delivered_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "destinations_organization_id_provider_id_idx" ON "destinations"("organization_id", "provider_id");

-- CreateIndex
CREATE UNIQUE INDEX "destinations_provider_id_name_key" ON "destinations"("provider_id", "name");

-- CreateIndex
CREATE INDEX "deliveries_destination_id_status_idx" ON "deliveries"("destination_id", "status");

-- CreateIndex
CREATE INDEX "deliveries_status_next_attempt_at_idx" ON "deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "deliveries_event_id_destination_id_key" ON "deliveries"("event_id", "destination_id");

-- CreateIndex
CREATE INDEX "delivery_attempts_destination_id_idx" ON "delivery_attempts"("destination_id");

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
