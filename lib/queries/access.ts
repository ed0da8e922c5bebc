// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; rules live in the callers (lib/oidc/access-tokens.ts).
import { byPosition, turnBatched } from "../database/batch";
import { pool } from "../database/client";
import { isAppLiveIn } from "../schemas/sandboxes";

/**
 * What the bearer check (lib/oidc/access-tokens.ts: the API and userinfo) needs from the database
 * after a token verified: whether its app is still approved, whether its user still exists and is
 * enabled, and the two revocation watermarks: tokens of the app, or of this person for
 * this app, issued at or before them are void. Misses of one event-loop turn share ONE query: with
 * many distinct users each token is seen about once per cache period, so a query of its own would
 * double the round trips of a one-query read.
 */
export interface AccessStatus {
  appApproved: boolean;
  /** undefined: app-only token. null: the user id does not exist. */
  userDisabled: boolean | null | undefined;
  /** Unix seconds: the app's tokens with `iat` at or before it are void (suspension, secret roll). */
  appTokensRevokedAt: number | null;
  /** Unix seconds: this person's tokens for the app with `iat` at or before it are void. */
  userTokensRevokedAt: number | null;
  /** The app's API quota per minute as an admin set it; null: the platform default. A sandbox's own quota. */
  appRequestsPerMinute: number | null;
  /** The token's world: 0 for a live client, the sandbox's id for an `sbx_` client. */
  worldId: number;
  /** The world of the token's user (undefined for app-only tokens or a missing user). */
  userWorldId: number | undefined;
}

const loadAccessStatus = turnBatched<{ clientId: string; userId: number | undefined }, AccessStatus>(async (keys) => {
  const { rows } = await pool.query<{
    i: string;
    app_status: string | null;
    app_revoked: number | null;
    user_disabled: boolean | null;
    grant_revoked: number | null;
    app_quota: number | null;
    sandbox_world: number | null;
    sandbox_quota: number | null;
    sandbox_revoked: number | null;
    user_world: number | null;
  }>({
    name: "api_access_status_batch_v4",
    // Timestamps hold UTC (as Prisma writes them): epoch of a timestamp without time zone is UTC.
    // An `sbx_` client is its app's sandbox (its app row by the rest of the id, its
    // Sandbox row by the whole id); a live client's row is found as before, and its Sandbox probe
    // has a null key (no index read).
    text: `SELECT k.i, a.status::text AS app_status, floor(extract(epoch FROM a."tokensRevokedAt"))::int AS app_revoked,
                  a."requestsPerMinute" AS app_quota,
                  sb.id AS sandbox_world, sb."quotaPerMinute" AS sandbox_quota,
                  floor(extract(epoch FROM sb."tokensRevokedAt"))::int AS sandbox_revoked,
                  u.disabled AS user_disabled, u."worldId" AS user_world, floor(extract(epoch FROM r."revokedAt"))::int AS grant_revoked
           FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS k(client_id, user_id, i)
           LEFT JOIN "Application" a
             ON a."clientId" = CASE WHEN starts_with(k.client_id, 'sbx_') THEN substr(k.client_id, 5) ELSE k.client_id END
           LEFT JOIN "Sandbox" sb ON sb."clientId" = CASE WHEN starts_with(k.client_id, 'sbx_') THEN k.client_id END
           LEFT JOIN "User" u ON u.id = k.user_id
           LEFT JOIN "TokenRevocation" r ON r."userId" = k.user_id AND r."clientId" = k.client_id`,
    values: [keys.map((k) => k.clientId), keys.map((k) => k.userId ?? null)],
  });
  const inOrder = byPosition(rows, keys.length);
  return keys.map((k, index) => {
    const row = inOrder[index];
    const sandbox = row?.sandbox_world != null;
    const appRevoked = row?.app_revoked ?? null;
    const sandboxRevoked = row?.sandbox_revoked ?? null;
    return {
      appApproved: isAppLiveIn(row?.app_status, sandbox ? "sandbox" : "live"),
      userDisabled: k.userId === undefined ? undefined : (row?.user_disabled ?? null),
      appTokensRevokedAt:
        appRevoked === null ? sandboxRevoked : sandboxRevoked === null ? appRevoked : Math.max(appRevoked, sandboxRevoked),
      userTokensRevokedAt: row?.grant_revoked ?? null,
      appRequestsPerMinute: sandbox ? (row?.sandbox_quota ?? null) : (row?.app_quota ?? null),
      worldId: sandbox ? row!.sandbox_world! : 0,
      userWorldId: row?.user_world ?? undefined,
    };
  });
});

export function getAccessStatus(clientId: string, userId: number | undefined): Promise<AccessStatus> {
  return loadAccessStatus({ clientId, userId });
}
