-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "deviceFlow" BOOLEAN NOT NULL DEFAULT false;

