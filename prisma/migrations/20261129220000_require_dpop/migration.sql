-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "requireDpop" BOOLEAN NOT NULL DEFAULT false;
