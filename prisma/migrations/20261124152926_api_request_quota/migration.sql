-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "requestsPerMinute" INTEGER;

-- CreateTable
CREATE TABLE "ApiQuotaWindow" (
    "clientId" TEXT NOT NULL,
    "window" INTEGER NOT NULL,
    "reserved" INTEGER NOT NULL,
    "lastGrant" INTEGER NOT NULL,

    CONSTRAINT "ApiQuotaWindow_pkey" PRIMARY KEY ("clientId","window")
);

