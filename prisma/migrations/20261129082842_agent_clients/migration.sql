-- CreateEnum
CREATE TYPE "AgentRuleKind" AS ENUM ('domain', 'url');

-- CreateEnum
CREATE TYPE "AgentRulePolicy" AS ENUM ('trusted', 'review', 'blocked');

-- AlterEnum
ALTER TYPE "AppType" ADD VALUE 'agent';

-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "agentMetadata" JSONB,
ADD COLUMN     "agentMetadataExpiresAt" TIMESTAMP(3),
ADD COLUMN     "lastSeenAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "AgentRule" (
    "id" SERIAL NOT NULL,
    "kind" "AgentRuleKind" NOT NULL,
    "value" TEXT NOT NULL,
    "policy" "AgentRulePolicy" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdById" INTEGER,

    CONSTRAINT "AgentRule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AgentRule_kind_value_key" ON "AgentRule"("kind", "value");

