-- CreateTable
CREATE TABLE "ApiUserQuotaWindow" (
    "clientId" TEXT NOT NULL,
    "userId" INTEGER NOT NULL,
    "window" INTEGER NOT NULL,
    "reserved" INTEGER NOT NULL,
    "lastGrant" INTEGER NOT NULL,

    CONSTRAINT "ApiUserQuotaWindow_pkey" PRIMARY KEY ("clientId","userId","window")
);

-- CreateIndex
CREATE INDEX "ApiUserQuotaWindow_window_idx" ON "ApiUserQuotaWindow"("window");

