-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "pendingChange" JSONB,
ADD COLUMN     "pendingChangeRejection" TEXT;

