// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/sign-in-sessions.ts.
import { pool } from "../database/client";

/**
 * Every authorization a sign-in session answers writes its row (the resume step of each sign-in),
 * and every sign-in from a new browser writes a notice and an audit entry: both are on the sign-in
 * flow (bench case F), so each is one pg statement rather than Prisma (an upsert, or a transaction
 * of two inserts: ~4 round trips and Prisma's planning). Timestamps are UTC wall-clock
 * (`timezone('UTC', now())`) as Prisma writes `timestamp(3)` columns.
 */
const SESSION_ACTIVITY_SQL = `
  INSERT INTO "SignInSession" (uid, "userId", "userAgent", "addressPrefix", "createdAt", "lastActiveAt")
  VALUES ($1, $2, $3, $4, timezone('UTC', now()), timezone('UTC', now()))
  ON CONFLICT (uid) DO UPDATE
    SET "userId" = EXCLUDED."userId", "userAgent" = EXCLUDED."userAgent",
        "addressPrefix" = EXCLUDED."addressPrefix", "lastActiveAt" = EXCLUDED."lastActiveAt"`;

export async function upsertSignInSessionActivity(row: { uid: string; userId: number; userAgent: string; addressPrefix: string }): Promise<void> {
  await pool.query({ name: "sign_in_session_activity", text: SESSION_ACTIVITY_SQL, values: [row.uid, row.userId, row.userAgent, row.addressPrefix] });
}

/**
 * A sign-in from a browser the account has not used before: always audited; the person is told
 * (a `security` notice) unless this is the account's very first such sign-in — an account's first
 * browser is not new to anyone, and a person who just signed up would otherwise be warned about
 * themselves. "First" is read from the audit log (an earlier `user.session.new_device` entry), in
 * the same statement, so the notice and the entry are written together or not at all.
 */
const NEW_DEVICE_SQL = `
  WITH seen AS (
    SELECT EXISTS (
      SELECT 1 FROM "AuditLog" WHERE "targetType" = 'user' AND "targetId" = $3 AND action = 'user.session.new_device'
    ) AS before
  ), notice AS (
    INSERT INTO "Notification" ("userId", type, read, message, "createdAt")
    SELECT $1, 'security', false, $2, timezone('UTC', now()) FROM seen WHERE seen.before
    RETURNING id
  )
  INSERT INTO "AuditLog" ("actorId", "actorHandle", action, "targetType", "targetId", outcome, detail, ip, "createdAt")
  SELECT $1, $3, 'user.session.new_device', 'user', $3, 'ok', $4::jsonb || jsonb_build_object('notified', seen.before), $5, timezone('UTC', now())
  FROM seen`;

export async function insertNewDeviceNotice(input: { userId: number; handle: string; message: string; detail: Record<string, unknown>; ip: string | null }): Promise<void> {
  await pool.query({
    name: "sign_in_new_device_v2",
    text: NEW_DEVICE_SQL,
    values: [input.userId, input.message, input.handle, JSON.stringify(input.detail), input.ip],
  });
}
