// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/second-factors.ts.
import { pool } from "../database/client";

/**
 * The account an interaction's second-factor challenge waits for, unless it expired. Every hosted
 * login page asks (is this interaction at its second step?), so every sign-in does (bench case F):
 * one named pg statement rather than Prisma's findUnique. `expiresAt` is UTC wall-clock, as Prisma
 * writes `timestamp(3)` columns.
 */
const CHALLENGE_USER_SQL = `
  SELECT "userId" FROM "SignInChallenge"
  WHERE "interactionUid" = $1 AND "expiresAt" > timezone('UTC', now())`;

export async function findSignInChallengeUser(interactionUid: string): Promise<number | null> {
  const { rows } = await pool.query<{ userId: number }>({ name: "sign_in_challenge_user", text: CHALLENGE_USER_SQL, values: [interactionUid] });
  return rows[0]?.userId ?? null;
}
