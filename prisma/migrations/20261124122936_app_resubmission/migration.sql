-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "previousRejectionReason" TEXT,
ADD COLUMN     "resubmittedAt" TIMESTAMP(3);

