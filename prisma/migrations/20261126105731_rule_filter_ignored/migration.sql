-- Rule filters, issue 29: a webhook its rule filter does not match ends ignored. A null filter lets all through.

-- AlterEnum
ALTER TYPE "EventStatus" ADD VALUE 'ignored';

-- AlterTable
ALTER TABLE "providers" ADD COLUMN     "filter" JSONB;
