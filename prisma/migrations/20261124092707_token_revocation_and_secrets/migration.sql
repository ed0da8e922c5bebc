-- Issue 12: several secrets per API client (rotation without downtime) and token revocation
-- watermarks per app and per (user, app).

-- CreateTable
CREATE TABLE "ClientSecret" (
    "id" TEXT NOT NULL,
    "applicationId" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),

    CONSTRAINT "ClientSecret_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TokenRevocation" (
    "userId" INTEGER NOT NULL,
    "clientId" TEXT NOT NULL,
    "revokedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TokenRevocation_pkey" PRIMARY KEY ("userId","clientId")
);

-- CreateIndex
CREATE UNIQUE INDEX "ClientSecret_hash_key" ON "ClientSecret"("hash");

-- CreateIndex
CREATE INDEX "ClientSecret_applicationId_idx" ON "ClientSecret"("applicationId");

-- AddForeignKey
ALTER TABLE "ClientSecret" ADD CONSTRAINT "ClientSecret_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "Application"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Existing secrets move to "ClientSecret" (hash, hint and creation time kept) before the columns go.
INSERT INTO "ClientSecret" ("id", "applicationId", "hash", "hint", "createdAt")
SELECT 'sec_' || substr(md5(random()::text || "clientId"), 1, 16), "id", "secretHash", COALESCE("secretHint", ''),
       COALESCE("secretCreatedAt", CURRENT_TIMESTAMP)
FROM "Application" WHERE "secretHash" IS NOT NULL;

-- AlterTable
ALTER TABLE "Application" DROP COLUMN "secretCreatedAt",
DROP COLUMN "secretHash",
DROP COLUMN "secretHint",
ADD COLUMN     "tokensRevokedAt" TIMESTAMP(3);
