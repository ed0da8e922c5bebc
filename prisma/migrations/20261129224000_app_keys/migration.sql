-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "jwks" JSONB,
ADD COLUMN     "jwksUpdatedAt" TIMESTAMP(3),
ADD COLUMN     "jwksUri" TEXT;

-- The replay table holds client assertions' jtis too (private_key_jwt): named for what it holds.
ALTER TABLE "DpopProof" RENAME TO "SpentJti";
ALTER TABLE "SpentJti" RENAME CONSTRAINT "DpopProof_pkey" TO "SpentJti_pkey";
ALTER INDEX "DpopProof_expiresAt_idx" RENAME TO "SpentJti_expiresAt_idx";
