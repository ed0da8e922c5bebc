// Data layer (STYLE.md Layout): hot-path SQL over pg, one statement per export; the rules stay in lib/services/directory.ts.
import { pool } from "../database/client";
import type { Reader } from "../database/replicas";
import type { IdentifierType } from "../schemas/directory";

/**
 * Only users with `directoryVisible` and an enabled account are listed or resolved. Links are
 * stored normalized, so lookups are exact matches on the (type, value) unique index.
 */
export interface DirectoryIdentityRecord {
  handle: string;
  displayName: string;
  avatarUrl: string;
  avatarUrlSmall: string;
}

interface IdentityRow {
  handle: string;
  display_name: string;
  avatar_url: string;
  avatar_url_small: string;
}

const IDENTITY_COLUMNS = `u.handle, u."displayName" AS display_name, u."avatarUrl" AS avatar_url, u."avatarUrlSmall" AS avatar_url_small`;

function toRecord(r: IdentityRow): DirectoryIdentityRecord {
  return { handle: r.handle, displayName: r.display_name, avatarUrl: r.avatar_url, avatarUrlSmall: r.avatar_url_small };
}

/** An identifier in stored form: a handle (looked up on User) or a directory link of a LinkType. */
export interface StoredIdentifier {
  type: IdentifierType;
  /** Already normalized (lib/services/directory.ts normalizeIdentifier). */
  value: string;
}

/**
 * Resolves identifiers in ONE query (unnest WITH ORDINALITY + a lateral lookup per item); the
 * result has one entry per identifier, in request order, null for a miss.
 */
export async function findDirectoryIdentities(
  identifiers: StoredIdentifier[],
  worldId: number,
  reader: Reader = pool,
): Promise<(DirectoryIdentityRecord | null)[]> {
  const kinds = identifiers.map((i) => (i.type === "handle" ? null : i.type));
  const values = identifiers.map((i) => i.value);
  const { rows } = await reader.query<IdentityRow & { ord: string }>({
    name: "api_directory_resolve_v2",
    text: `
      SELECT q.ord, ${IDENTITY_COLUMNS}
      FROM unnest($1::"LinkType"[], $2::text[]) WITH ORDINALITY AS q(link_type, value, ord)
      JOIN LATERAL (
        SELECT coalesce(
          (SELECT id FROM "User" WHERE q.link_type IS NULL AND "worldId" = $3 AND handle = q.value),
          (SELECT "userId" FROM "DirectoryLink" WHERE q.link_type IS NOT NULL AND "worldId" = $3 AND type = q.link_type AND value = q.value)
        ) AS user_id
      ) hit ON true
      JOIN "User" u ON u.id = hit.user_id AND u."directoryVisible" AND NOT u.disabled`,
    values: [kinds, values, worldId],
  });
  const found = new Map(rows.map((r) => [Number(r.ord), toRecord(r)]));
  return identifiers.map((_, i) => found.get(i + 1) ?? null);
}

/**
 * The statement of listDirectoryUsersAfter ($1 after id, $2 count, $3 world); bench/explain.ts shows
 * its plan. The world leads the index it reads (User_worldId_directoryVisible_id_idx), so a live page
 * costs what it did before worlds existed. The world is a range and the order names the index's
 * columns, so that only that index gives the order (with an equality, PostgreSQL folds the world out
 * of the order and walked the primary key at a million users, filtering by world:
 * tests/sandbox/query-plans.test.ts and lib/queries/chat.ts).
 */
export const LIST_DIRECTORY_USERS_STATEMENT = {
  name: "api_directory_list_v3",
  text: `SELECT u.id, ${IDENTITY_COLUMNS} FROM "User" u
         WHERE u."worldId" BETWEEN $3 AND $3 AND u."directoryVisible" AND NOT u.disabled AND u.id > $1
         ORDER BY u."worldId", u."directoryVisible", u.id LIMIT $2`,
};

/** At most `count` listed users of world `worldId` with ids above `afterId`, in id order (a keyset page). */
export async function listDirectoryUsersAfter(
  afterId: number,
  count: number,
  worldId: number,
  reader: Reader = pool,
): Promise<(DirectoryIdentityRecord & { id: number })[]> {
  const { rows } = await reader.query<IdentityRow & { id: number }>({ ...LIST_DIRECTORY_USERS_STATEMENT, values: [afterId, count, worldId] });
  return rows.map((r) => ({ id: r.id, ...toRecord(r) }));
}
