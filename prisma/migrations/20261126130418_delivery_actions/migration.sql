-- Acting on one destination's delivery (issue 29, docs/routing.md "Seeing and acting on deliveries"):
-- acknowledged_at takes a failed delivery out of the "needs attention" view as the event's own does;
-- run_start_attempt is attempt_count when the delivery's current run began (a retry or a resume starts a
-- fresh attempt budget, as events do): the retry policy counts only the run's own attempts.

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "acknowledged_at" TIMESTAMP(3),
ADD COLUMN     "run_start_attempt" INTEGER NOT NULL DEFAULT 0;
