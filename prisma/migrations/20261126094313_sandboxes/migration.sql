-- DropIndex
DROP INDEX "User_handle_key";

-- DropIndex
DROP INDEX "User_directoryVisible_id_idx";

-- DropIndex
DROP INDEX "DirectoryLink_type_value_key";

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "worldId" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "ChatMessage" ADD COLUMN     "worldId" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "DirectoryLink" ADD COLUMN     "worldId" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "Sandbox" (
    "id" SERIAL NOT NULL,
    "applicationId" INTEGER NOT NULL,
    "clientId" TEXT NOT NULL,
    "secretHash" TEXT,
    "secretHint" TEXT,
    "tokensRevokedAt" TIMESTAMP(3),
    "quotaPerMinute" INTEGER NOT NULL DEFAULT 600,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "generatedAt" TIMESTAMP(3),

    CONSTRAINT "Sandbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Sandbox_applicationId_key" ON "Sandbox"("applicationId");

-- CreateIndex
CREATE UNIQUE INDEX "Sandbox_clientId_key" ON "Sandbox"("clientId");

-- CreateIndex
CREATE UNIQUE INDEX "Sandbox_secretHash_key" ON "Sandbox"("secretHash");

-- CreateIndex
CREATE INDEX "User_worldId_directoryVisible_id_idx" ON "User"("worldId", "directoryVisible", "id");

-- CreateIndex
CREATE UNIQUE INDEX "User_worldId_handle_key" ON "User"("worldId", "handle");

-- CreateIndex
CREATE INDEX "ChatMessage_worldId_id_idx" ON "ChatMessage"("worldId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "DirectoryLink_worldId_type_value_key" ON "DirectoryLink"("worldId", "type", "value");

-- AddForeignKey
ALTER TABLE "Sandbox" ADD CONSTRAINT "Sandbox_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "Application"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Issue 26: every existing app gets its sandbox (no secret yet: an API client's owner rolls one).
INSERT INTO "Sandbox" ("applicationId", "clientId") SELECT id, 'sbx_' || "clientId" FROM "Application";
