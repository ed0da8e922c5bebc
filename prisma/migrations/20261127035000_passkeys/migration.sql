-- AlterTable
ALTER TABLE "SecondFactor" ADD COLUMN     "backedUp" BOOLEAN,
ADD COLUMN     "credentialId" TEXT,
ADD COLUMN     "name" TEXT,
ADD COLUMN     "publicKey" BYTEA,
ADD COLUMN     "signCount" BIGINT,
ADD COLUMN     "transports" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "WebAuthnChallenge" (
    "key" TEXT NOT NULL,
    "challenge" TEXT NOT NULL,
    "userId" INTEGER,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebAuthnChallenge_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "WebAuthnChallenge_expiresAt_idx" ON "WebAuthnChallenge"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "SecondFactor_credentialId_key" ON "SecondFactor"("credentialId");

