// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/app-secrets.ts.
import { turnBatched } from "../database/batch";
import { pool } from "../database/client";
import { appLiveSql } from "../schemas/sandboxes";

export interface ActiveSecrets {
  secrets: { id: string; hash: string }[];
  /** Unix seconds of the app's token watermark, or null (lib/oidc/access-tokens.ts). */
  tokensRevokedAt: number | null;
}

/**
 * The active secret hashes of an approved API client, read fresh (no cache). Read on every
 * client-credentials grant, so the grants of one event-loop turn share the query.
 * Null when the client is unknown, not an API client or not approved.
 */
export function findActiveSecrets(clientId: string): Promise<ActiveSecrets | null> {
  return loadActiveSecrets(clientId);
}

const loadActiveSecrets = turnBatched<string, ActiveSecrets | null>(async (clientIds) => {
  const { rows } = await pool.query<{ clientId: string; revoked: number | null; id: string | null; hash: string | null }>({
    name: "apps_active_secrets",
    text: `SELECT a."clientId", floor(extract(epoch FROM a."tokensRevokedAt"))::int AS revoked, s.id, s.hash
           FROM "Application" a LEFT JOIN "ClientSecret" s ON s."applicationId" = a.id
           WHERE a."clientId" = ANY($1::text[]) AND ${appLiveSql("a.status", "live")} AND a.type = 'api'`,
    values: [[...new Set(clientIds)]],
  });
  const byClient = new Map<string, ActiveSecrets>();
  for (const row of rows) {
    let entry = byClient.get(row.clientId);
    if (!entry) byClient.set(row.clientId, (entry = { secrets: [], tokensRevokedAt: row.revoked }));
    if (row.id && row.hash) entry.secrets.push({ id: row.id, hash: row.hash });
  }
  return clientIds.map((id) => byClient.get(id) ?? null);
});

/** Stamps a secret's "last used" time with the database clock (UTC wall-clock, as Prisma writes it). */
export async function updateSecretLastUsedAt(secretId: string): Promise<void> {
  await pool.query(`UPDATE "ClientSecret" SET "lastUsedAt" = now() AT TIME ZONE 'UTC' WHERE id = $1`, [secretId]);
}
