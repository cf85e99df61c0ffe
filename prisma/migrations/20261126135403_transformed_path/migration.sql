-- The path and query a transform returned (issue 30), stored with its body and headers at the first attempt of a
-- delivery: a rule or destination with forward_path_query appends them to its target URL, on every automatic
-- retry alike. The path and its query string as a URL writes them, null when no transform ran.

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "transformed_path" TEXT;

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "transformed_path" TEXT;
