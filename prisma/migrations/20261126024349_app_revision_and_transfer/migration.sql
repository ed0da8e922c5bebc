-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "transferRequestedAt" TIMESTAMP(3),
ADD COLUMN     "transferToId" INTEGER;

-- AddForeignKey
ALTER TABLE "Application" ADD CONSTRAINT "Application_transferToId_fkey" FOREIGN KEY ("transferToId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- Issue 24, "approve what was looked at": every stored change to what a reviewer sees moves the
-- app's revision, whichever code path (Prisma, raw SQL, a future service) writes it. Reviews
-- compare the revision they name with the locked row's (lib/services/app-review.ts).
CREATE FUNCTION "application_bump_revision"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (OLD."name", OLD."description", OLD."type", OLD."status", OLD."statusReason", OLD."ownerId",
      OLD."redirectUris", OLD."postLogoutRedirectUris", OLD."scopes", OLD."deviceFlow",
      OLD."homepageUrl", OLD."privacyPolicyUrl", OLD."termsUrl", OLD."logo",
      OLD."pendingChange", OLD."pendingChangeRejection", OLD."transferToId", OLD."resubmittedAt")
     IS DISTINCT FROM
     (NEW."name", NEW."description", NEW."type", NEW."status", NEW."statusReason", NEW."ownerId",
      NEW."redirectUris", NEW."postLogoutRedirectUris", NEW."scopes", NEW."deviceFlow",
      NEW."homepageUrl", NEW."privacyPolicyUrl", NEW."termsUrl", NEW."logo",
      NEW."pendingChange", NEW."pendingChangeRejection", NEW."transferToId", NEW."resubmittedAt") THEN
    NEW."revision" := OLD."revision" + 1;
  ELSE
    NEW."revision" := OLD."revision";
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "Application_revision" BEFORE UPDATE ON "Application"
  FOR EACH ROW EXECUTE FUNCTION "application_bump_revision"();
