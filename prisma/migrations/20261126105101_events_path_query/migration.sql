-- Events keep the request path after the source segment and the query (issue 29): what routing filters read.
-- Constant defaults: no table rewrite, and events stored before read as path "" and query {}.

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "path" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "query" JSONB NOT NULL DEFAULT '{}';
