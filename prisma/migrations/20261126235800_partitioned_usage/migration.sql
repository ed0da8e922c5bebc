-- Issue 30, part 3: the usage tables are range-partitioned by "periodStart", one partition per UTC
-- day, so retention drops whole days instead of deleting rows one by one. Prisma's schema cannot
-- declare partitioning: this migration does it, with the same columns, primary keys (they already
-- lead with the partition key's columns) and indexes as prisma/schema.prisma describes, so the
-- drift test (lib/database/migrate.test.ts) still compares equal.
--
-- Each table has a DEFAULT partition that catches a row no daily partition covers (a day the
-- retention job has not created ahead yet): a write never fails for want of a partition. The job
-- (lib/services/usage.ts) creates today's and the next days' partitions, moving any rows the default
-- partition holds for that day, and drops the days past retention.

-- Creates the day partition of `parent` for `day` (named <parent>_pYYYYMMDD) unless it exists,
-- moving the rows its default partition holds for that day into it. Returns whether it created one.
-- Serialized by a transaction advisory lock (fine behind a transaction pooler) and by the default
-- partition's lock, so processes running the job at once never race.
CREATE FUNCTION platform_ensure_day_partition(parent text, key text, day date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  part text := parent || '_p' || to_char(day, 'YYYYMMDD');
  dflt text := parent || '_default';
  lo timestamp := day::timestamp;
  hi timestamp := (day + 1)::timestamp;
BEGIN
  IF to_regclass(quote_ident(part)) IS NOT NULL THEN RETURN false; END IF;
  PERFORM pg_advisory_xact_lock(hashtext('platform_partitions'));
  IF to_regclass(quote_ident(part)) IS NOT NULL THEN RETURN false; END IF;
  EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', dflt);
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, parent);
  EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
                 dflt, key, key, part) USING lo, hi;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
  RETURN true;
END $$;

-- Drops the day partitions of `parent` that end on or before `before` (whole days past retention);
-- returns how many rows they held.
CREATE FUNCTION platform_drop_day_partitions(parent text, before timestamp) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  child record;
  n bigint;
  total bigint := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('platform_partitions'));
  FOR child IN
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = quote_ident(parent)::regclass AND c.relname ~ ('^' || parent || '_p[0-9]{8}$')
      AND to_date(right(c.relname, 8), 'YYYYMMDD') + 1 <= before
    ORDER BY c.relname
  LOOP
    EXECUTE format('SELECT count(*) FROM %I', child.relname) INTO n;
    EXECUTE format('DROP TABLE %I', child.relname);
    total := total + n;
  END LOOP;
  RETURN total;
END $$;

-- UsageCount
-- The rows wait in a temporary copy (so the new table's constraints get their usual names).
CREATE TEMP TABLE "UsageCount_unpartitioned" ON COMMIT DROP AS SELECT * FROM "UsageCount";
DROP TABLE "UsageCount";

CREATE TABLE "UsageCount" (
    "clientId" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "status" SMALLINT NOT NULL,
    "errorCode" TEXT NOT NULL DEFAULT '',
    "periodStart" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "UsageCount_pkey" PRIMARY KEY ("clientId","periodStart","route","status","errorCode")
) PARTITION BY RANGE ("periodStart");
CREATE INDEX "UsageCount_periodStart_idx" ON "UsageCount"("periodStart");
CREATE TABLE "UsageCount_default" PARTITION OF "UsageCount" DEFAULT;

INSERT INTO "UsageCount" ("clientId", "route", "status", "errorCode", "periodStart", "count")
SELECT "clientId", "route", "status", "errorCode", "periodStart", "count" FROM "UsageCount_unpartitioned";
DROP TABLE "UsageCount_unpartitioned";

-- UsageLatency
-- The rows wait in a temporary copy (so the new table's constraints get their usual names).
CREATE TEMP TABLE "UsageLatency_unpartitioned" ON COMMIT DROP AS SELECT * FROM "UsageLatency";
DROP TABLE "UsageLatency";

CREATE TABLE "UsageLatency" (
    "clientId" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "periodStart" TIMESTAMP(3) NOT NULL,
    "bucket" SMALLINT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "UsageLatency_pkey" PRIMARY KEY ("clientId","periodStart","route","bucket")
) PARTITION BY RANGE ("periodStart");
CREATE INDEX "UsageLatency_periodStart_idx" ON "UsageLatency"("periodStart");
CREATE TABLE "UsageLatency_default" PARTITION OF "UsageLatency" DEFAULT;

INSERT INTO "UsageLatency" ("clientId", "route", "periodStart", "bucket", "count")
SELECT "clientId", "route", "periodStart", "bucket", "count" FROM "UsageLatency_unpartitioned";
DROP TABLE "UsageLatency_unpartitioned";

-- The days the existing rows fall on (at most the 91 days retention keeps), yesterday, today and
-- the next 7: their partitions now, the rows moved out of the default partitions.
SELECT platform_ensure_day_partition(t, 'periodStart', d::date)
FROM (VALUES ('UsageCount'), ('UsageLatency')) AS tables(t),
LATERAL (
  SELECT DISTINCT "periodStart"::date AS d FROM "UsageCount_default" WHERE t = 'UsageCount' AND "periodStart" >= (now() AT TIME ZONE 'UTC')::date - 91
  UNION SELECT DISTINCT "periodStart"::date FROM "UsageLatency_default" WHERE t = 'UsageLatency' AND "periodStart" >= (now() AT TIME ZONE 'UTC')::date - 91
  UNION SELECT generate_series((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 7, interval '1 day')::date
) AS days
ORDER BY t, d;
