-- Transformations and pacing (issue 30, docs/transformations.md and docs/rules.md "Pacing"). A rule (for its
-- primary target) and each destination may carry a transform (JavaScript, at most 256 KB, checked at save),
-- whether the transform's path and query are appended to the target URL, and pacing (a rate limit as
-- {limit, period, burst} and a concurrency cap), each null when off. The transformed request the worker sends is
-- stored once, at a delivery's first attempt, so that every automatic retry sends the same bytes: the primary's on
-- the event, a destination's on its delivery, each with the transform's captured console output.

-- AlterTable
ALTER TABLE "providers" ADD COLUMN     "transform" TEXT,
ADD COLUMN     "forward_path_query" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "rate_limit" JSONB,
ADD COLUMN     "max_concurrency" INTEGER;

-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "transform" TEXT,
ADD COLUMN     "forward_path_query" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "rate_limit" JSONB,
ADD COLUMN     "max_concurrency" INTEGER;

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "transformed_body" BYTEA,
ADD COLUMN     "transformed_headers" JSONB,
ADD COLUMN     "transform_logs" TEXT;

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "transformed_body" BYTEA,
ADD COLUMN     "transformed_headers" JSONB,
ADD COLUMN     "transform_logs" TEXT;
