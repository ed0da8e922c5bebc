-- CreateTable
CREATE TABLE "McpSubscription" (
    "sessionId" TEXT NOT NULL,
    "uri" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "userId" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "McpSubscription_pkey" PRIMARY KEY ("sessionId","uri")
);

-- CreateIndex
CREATE INDEX "McpSubscription_seenAt_idx" ON "McpSubscription"("seenAt");

