-- AlterTable
ALTER TABLE "User" ADD COLUMN     "isTestUser" BOOLEAN NOT NULL DEFAULT false;

