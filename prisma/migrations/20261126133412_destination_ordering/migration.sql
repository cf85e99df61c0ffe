-- Ordered delivery per destination (docs/routing.md "Destinations", delivery-ordering.sql.ts): a delivery carries
-- its event's ordering key (null: not ordered), and an ordered event's row says whether its fan-out ran. Rows
-- stored before this migration were fanned out already (their fan-out ran on their first pass), hence true for
-- them and false for rows written from now on.

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "ordering_key" TEXT;

-- AlterTable
ALTER TABLE "event_ordering" ADD COLUMN     "fanned_out" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "event_ordering" ALTER COLUMN "fanned_out" SET DEFAULT false;

-- CreateIndex
CREATE INDEX "deliveries_destination_id_ordering_key_event_id_idx" ON "deliveries"("destination_id", "ordering_key", "event_id");
