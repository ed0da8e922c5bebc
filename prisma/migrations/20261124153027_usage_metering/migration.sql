-- CreateTable
CREATE TABLE "UsageCount" (
    "clientId" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "status" SMALLINT NOT NULL,
    "errorCode" TEXT NOT NULL DEFAULT '',
    "periodStart" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "UsageCount_pkey" PRIMARY KEY ("clientId","periodStart","route","status","errorCode")
);

-- CreateTable
CREATE TABLE "UsageLatency" (
    "clientId" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "periodStart" TIMESTAMP(3) NOT NULL,
    "bucket" SMALLINT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "UsageLatency_pkey" PRIMARY KEY ("clientId","periodStart","route","bucket")
);

-- CreateTable
CREATE TABLE "RequestLog" (
    "id" BIGSERIAL NOT NULL,
    "clientId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "method" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "status" SMALLINT NOT NULL,
    "errorCode" TEXT,
    "latencyMs" REAL NOT NULL,
    "requestId" TEXT NOT NULL,
    "userId" INTEGER,

    CONSTRAINT "RequestLog_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "UsageCount_periodStart_idx" ON "UsageCount"("periodStart");

-- CreateIndex
CREATE INDEX "UsageLatency_periodStart_idx" ON "UsageLatency"("periodStart");

-- CreateIndex
CREATE INDEX "RequestLog_clientId_at_idx" ON "RequestLog"("clientId", "at" DESC);

-- CreateIndex
CREATE INDEX "RequestLog_clientId_requestId_idx" ON "RequestLog"("clientId", "requestId");

-- CreateIndex
CREATE INDEX "RequestLog_at_idx" ON "RequestLog"("at");

