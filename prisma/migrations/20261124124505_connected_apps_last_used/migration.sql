-- AlterTable
ALTER TABLE "Consent" ADD COLUMN     "lastUsedAt" TIMESTAMP(3);

