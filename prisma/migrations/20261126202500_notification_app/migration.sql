-- AlterTable
ALTER TABLE "Notification" ADD COLUMN     "clientId" TEXT;
