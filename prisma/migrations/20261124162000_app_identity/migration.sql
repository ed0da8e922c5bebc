-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "homepageUrl" TEXT,
ADD COLUMN     "logo" TEXT,
ADD COLUMN     "privacyPolicyUrl" TEXT,
ADD COLUMN     "termsUrl" TEXT;

-- CreateTable
CREATE TABLE "AppLogo" (
    "id" SERIAL NOT NULL,
    "applicationId" INTEGER NOT NULL,
    "file" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "bytes" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AppLogo_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AppLogo_applicationId_file_key" ON "AppLogo"("applicationId", "file");

-- AddForeignKey
ALTER TABLE "AppLogo" ADD CONSTRAINT "AppLogo_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "Application"("id") ON DELETE CASCADE ON UPDATE CASCADE;

