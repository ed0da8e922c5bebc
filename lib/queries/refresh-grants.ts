// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/oidc/refresh-grant.ts.
import { byPosition, turnBatched } from "../database/batch";
import { pool } from "../database/client";
import { isAppLiveIn } from "../schemas/sandboxes";
import type { AccountRow } from "./accounts";

/**
 * Everything a refresh grant checks, in ONE read instead of oidc-provider's six round
 * trips (the token, its session, its grant, the account, the app, the revocation watermarks),
 * batched per event-loop turn. Rows of the OidcModel table as lib/oidc/adapter.ts writes them.
 */
export interface RefreshGrantState {
  /** The refresh token's stored payload (its `jti` is not stored: the row key is its digest). */
  token: Record<string, unknown>;
  consumed: boolean;
  /** The grant's payload, or null when it is gone or past its expiry. */
  grant: Record<string, unknown> | null;
  /** The session the token is bound to (`sessionUid`), or null when it is gone or past its expiry. */
  session: Record<string, unknown> | null;
  /** The token's user, or null when the account id names no user. */
  user: AccountRow | null;
  /** The token's app is live in the token's world (isAppLiveIn): a `sbx_` client's, in its sandbox. */
  appApproved: boolean;
  /**
   * Unix seconds (lib/queries/access.ts): the app's token watermark (a sandbox client's: the later
   * of its app's and its sandbox's) and this person's.
   */
  appTokensRevokedAt: number | null;
  userTokensRevokedAt: number | null;
}

const loadRefreshGrantState = turnBatched<string, RefreshGrantState | null>(async (keys) => {
  const { rows } = await pool.query<{
    i: string;
    token: Record<string, unknown>;
    consumed: boolean;
    grant: Record<string, unknown> | null;
    session: Record<string, unknown> | null;
    user_id: number | null;
    handle: string | null;
    display_name: string | null;
    avatar_url: string | null;
    disabled: boolean | null;
    app_status: string | null;
    app_revoked: number | null;
    sandbox_world: number | null;
    sandbox_revoked: number | null;
    grant_revoked: number | null;
  }>({
    name: "oidc_refresh_grant_state_v2",
    // Timestamps hold UTC (as Prisma writes them), compared with the adapter's ISO strings. An
    // `sbx_` client's token belongs to its app's sandbox: the app row by the rest of the id, the
    // Sandbox row by the whole id, as lib/queries/access.ts joins them (a live client's Sandbox
    // probe has a null key: no index read).
    text: `SELECT k.i, rt.payload AS token, rt."consumedAt" IS NOT NULL AS consumed,
                  g.payload AS grant, s.payload AS session,
                  u.id AS user_id, u.handle, u."displayName" AS display_name, u."avatarUrl" AS avatar_url, u.disabled,
                  a.status::text AS app_status,
                  floor(extract(epoch FROM a."tokensRevokedAt"))::int AS app_revoked,
                  sb.id AS sandbox_world, floor(extract(epoch FROM sb."tokensRevokedAt"))::int AS sandbox_revoked,
                  floor(extract(epoch FROM r."revokedAt"))::int AS grant_revoked
           FROM unnest($1::text[]) WITH ORDINALITY AS k(id, i)
           JOIN "OidcModel" rt ON rt.kind = 'RefreshToken' AND rt.id = k.id AND (rt."expiresAt" IS NULL OR rt."expiresAt" > $2)
           LEFT JOIN "OidcModel" g ON g.kind = 'Grant' AND g.id = rt."grantId" AND (g."expiresAt" IS NULL OR g."expiresAt" > $2)
           LEFT JOIN "OidcModel" s ON s.kind = 'Session' AND s.uid = rt.payload->>'sessionUid' AND (s."expiresAt" IS NULL OR s."expiresAt" > $2)
           LEFT JOIN "User" u ON u.id = CASE WHEN rt.payload->>'accountId' ~ '^[1-9][0-9]{0,8}$' THEN (rt.payload->>'accountId')::int END
           LEFT JOIN "Application" a
             ON a."clientId" = CASE WHEN starts_with(rt."clientId", 'sbx_') THEN substr(rt."clientId", 5) ELSE rt."clientId" END
           LEFT JOIN "Sandbox" sb ON sb."clientId" = CASE WHEN starts_with(rt."clientId", 'sbx_') THEN rt."clientId" END
           LEFT JOIN "TokenRevocation" r ON r."userId" = u.id AND r."clientId" = rt."clientId"`,
    values: [keys, new Date().toISOString()],
  });
  return byPosition(rows, keys.length).map((row) =>
    row
      ? {
          token: row.token,
          consumed: row.consumed,
          grant: row.grant,
          session: row.session,
          user:
            row.user_id === null
              ? null
              : { id: row.user_id, handle: row.handle!, displayName: row.display_name!, avatarUrl: row.avatar_url!, disabled: row.disabled! },
          appApproved: isAppLiveIn(row.app_status, row.sandbox_world !== null ? "sandbox" : "live"),
          appTokensRevokedAt: laterOf(row.app_revoked, row.sandbox_world !== null ? row.sandbox_revoked : null),
          userTokensRevokedAt: row.grant_revoked,
        }
      : null,
  );
});

function laterOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

/** The state behind a refresh token's row key (lib/oidc/adapter.ts bearerRowKey), or null when there is no live row. */
export function findRefreshGrantState(key: string): Promise<RefreshGrantState | null> {
  return loadRefreshGrantState(key);
}

export interface RefreshRotation {
  /** Row keys of the token presented and of its successor. */
  oldKey: string;
  newKey: string;
  /** The successor's payload, serialized (without its jti, as the adapter stores bearer kinds). */
  payload: string;
  grantId: string;
  clientId: string;
  /** ISO string, UTC. */
  expiresAt: string;
}

/**
 * Consumes the presented token and stores its successor, in one statement: only if the token is
 * still unconsumed and its grant still exists (a logout or revocation in between wins). Two
 * rotations of one token in a batch join its row twice; PostgreSQL updates it once and returns one
 * of them, so exactly one caller wins, as with separate statements (and as lib/oidc/adapter.ts
 * consume); a rotation in another batch waits for the row lock and then sees it consumed.
 */
const rotateBatch = turnBatched<RefreshRotation, boolean>(async (rotations) => {
  const column = <K extends keyof RefreshRotation>(name: K) => rotations.map((r) => r[name]);
  const { rows } = await pool.query<{ i: string }>({
    name: "oidc_refresh_rotate_batch_v1",
    text: `WITH k AS (
             SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::timestamp(3)[])
               WITH ORDINALITY AS k(old_id, new_id, payload, grant_id, client_id, expires_at, i)
           ), consumed AS (
             UPDATE "OidcModel" m SET "consumedAt" = $7
             FROM k
             WHERE m.kind = 'RefreshToken' AND m.id = k.old_id AND m."consumedAt" IS NULL
               AND EXISTS (SELECT 1 FROM "OidcModel" g WHERE g.kind = 'Grant' AND g.id = k.grant_id)
             RETURNING k.i
           ), stored AS (
             INSERT INTO "OidcModel" (kind, id, payload, "grantId", "clientId", "expiresAt")
             SELECT 'RefreshToken', k.new_id, k.payload, k.grant_id, k.client_id, k.expires_at
             FROM k JOIN consumed c ON c.i = k.i
           )
           SELECT i FROM consumed`,
    values: [
      column("oldKey"),
      column("newKey"),
      column("payload"),
      column("grantId"),
      column("clientId"),
      column("expiresAt"),
      new Date().toISOString(),
    ],
  });
  return byPosition(rows, rotations.length).map((row) => row !== undefined);
});

/** True when this rotation took the token; false when it was consumed meanwhile or its grant is gone. */
export function rotateRefreshToken(rotation: RefreshRotation): Promise<boolean> {
  return rotateBatch(rotation);
}
