-- CreateTable
CREATE TABLE "SignInSession" (
    "uid" TEXT NOT NULL,
    "userId" INTEGER NOT NULL,
    "userAgent" TEXT NOT NULL DEFAULT '',
    "addressPrefix" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastActiveAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SignInSession_pkey" PRIMARY KEY ("uid")
);

-- CreateIndex
CREATE INDEX "SignInSession_userId_idx" ON "SignInSession"("userId");
