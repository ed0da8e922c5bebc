-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "requirePar" BOOLEAN NOT NULL DEFAULT false;
