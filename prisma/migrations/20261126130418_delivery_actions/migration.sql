-- Acting on one destination's delivery (issue 29, docs/routing.md "Seeing and acting on deliveries"):
-- acknowledged_at marks a failed delivery an operator has seen (as the event's own does, a field, not a state),
-- and run_start_attempt is attempt_count when the delivery's current run began (a retry or a resume starts a
-- fresh attempt budget, as events do): the retry policy counts only the run's own attempts.

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "acknowledged_at" TIMESTAMP(3),
ADD COLUMN     "run_start_attempt" INTEGER NOT NULL DEFAULT 0;
