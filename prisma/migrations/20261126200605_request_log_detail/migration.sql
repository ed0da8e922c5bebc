-- AlterTable
ALTER TABLE "RequestLog" ADD COLUMN     "errorMessage" TEXT,
ADD COLUMN     "path" TEXT,
ADD COLUMN     "rateLimit" INTEGER,
ADD COLUMN     "rateRemaining" INTEGER;
