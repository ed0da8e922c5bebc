-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "jwks" JSONB,
ADD COLUMN     "jwksUpdatedAt" TIMESTAMP(3),
ADD COLUMN     "jwksUri" TEXT;

-- The replay table holds client assertions' jtis too (private_key_jwt): named for what it holds,
-- its constraints and index with it (PostgreSQL 18 names NOT NULL constraints too).
ALTER TABLE "DpopProof" RENAME TO "SpentJti";
ALTER TABLE "SpentJti" RENAME CONSTRAINT "DpopProof_pkey" TO "SpentJti_pkey";
ALTER TABLE "SpentJti" RENAME CONSTRAINT "DpopProof_id_not_null" TO "SpentJti_id_not_null";
ALTER TABLE "SpentJti" RENAME CONSTRAINT "DpopProof_expiresAt_not_null" TO "SpentJti_expiresAt_not_null";
ALTER INDEX "DpopProof_expiresAt_idx" RENAME TO "SpentJti_expiresAt_idx";
