import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import type { Adapter, AdapterPayload } from "oidc-provider";
import { errors } from "oidc-provider";
import { pgTransactionWithChanges } from "../database/changes";
import { byPosition, turnBatched } from "../database/batch";
import { pool } from "../database/client";
import { logger } from "../logger";
import { voidGrantTokensWith } from "../queries/token-revocations";
import { deleteEndedCounters } from "../services/throttle";
import { deleteEndedSignInSessions } from "../services/sign-in-sessions";
import { findClientMetadata } from "./clients";
import { claimReplayId, deleteExpiredSpentJtis, extendReplayClaim } from "./dpop";

function refuseAgent(reason: string): never {
  throw new errors.InvalidClient(reason);
}

/**
 * oidc-provider storage in PostgreSQL: every model kind in the one OidcModel table (after logto's
 * oidc_model_instances), through raw pg because the token endpoint is hot. `Client` is not stored
 * here: clients come from the applications table (lib/oidc/clients.ts).
 *
 * Timestamps are written as ISO strings with `Z` and compared in SQL, so the columns hold UTC like
 * the rows Prisma writes, whatever the session time zone.
 */
const TABLE = `"OidcModel"`;

function iso(date: Date): string {
  return date.toISOString();
}

/**
 * Ids, uids and user codes come from requests (a code, a refresh token). oidc-provider generates
 * them as printable ASCII; anything else cannot be stored here, and a NUL byte would make
 * PostgreSQL fail the query (a 500 instead of invalid_grant).
 */
export function isLookupValue(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 512 && /^[\x21-\x7e]+$/.test(value);
}

/**
 * jsonb cannot hold U+0000 or an unpaired surrogate, and an interaction's payload keeps the
 * request's parameters verbatim (state, nonce, login_hint…): such characters become U+FFFD, so a
 * hostile authorization request gets its ordinary answer instead of a 500.
 */
function storableStrings(_key: string, value: unknown): unknown {
  return typeof value === "string"
    ? value.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
    : value;
}

/** The row key of a bearer value (lib/oidc/refresh-grant.ts finds refresh tokens by it too). */
export function bearerRowKey(value: string): string {
  return `sha256:${createHash("sha256").update(value).digest("base64url")}`;
}

/**
 * Kinds whose id IS the bearer value (an authorization code, a refresh token…): stored under the
 * SHA-256 of the id, with the `jti` left out of the payload, so the table never holds a usable
 * token (tokens are never stored in plain text). `find` puts the jti back from the id it was given.
 */
const SECRET_ID_KINDS = new Set([
  "AuthorizationCode",
  "RefreshToken",
  "AccessToken",
  "ClientCredentials",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
  // A pushed request's request_uri starts a sign-in in that app's name (RFC 9126).
  "PushedAuthorizationRequest",
]);

/**
 * A device code found by its user code (RFC 8628 verification page) has no jti: the row keeps only
 * the code's digest. oidc-provider saves it back (in flight, approved, denied) and finds it again
 * from the interaction by that jti, so it gets a reference to its row instead. Such a reference is
 * honoured only inside deviceCodeReferences.run() (the verification routes, lib/oidc/device.ts),
 * never at the token endpoint: the database alone must never yield a usable device code.
 */
const DEVICE_CODE_REF = "devref.";
export const deviceCodeReferences = new AsyncLocalStorage<true>();

/** How long an expired device code's row stays (oidc-provider checks the payload's own `exp`). */
const EXPIRED_DEVICE_CODE_KEPT_SECONDS = 10 * 60;

interface StoredRow {
  kind: string;
  id: string;
  payload: string;
  grantId: string | null;
  userCode: string | null;
  uid: string | null;
  clientId: string | null;
  expiresAt: string | null;
}

/**
 * A refresh grant is five round trips (find the token and its grant, consume it, save
 * its successor…) and each costs more in the socket write than in PostgreSQL. Under load the
 * sign-in service's lookups, consumes and saves of one event-loop turn share one statement each
 * (lib/database/batch.ts), with the same semantics as one statement per call.
 */
const findById = turnBatched<{ kind: string; key: string }, { payload: AdapterPayload; consumed: boolean } | undefined>(async (keys) => {
  const { rows } = await pool.query<{ i: string; payload: AdapterPayload; consumed: boolean }>({
    name: "oidc_model_find_batch_v1",
    text: `SELECT k.i, m.payload, m."consumedAt" IS NOT NULL AS consumed
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(kind, id, i)
           JOIN ${TABLE} m ON m.kind = k.kind AND m.id = k.id
           WHERE m."expiresAt" IS NULL OR m."expiresAt" > $3`,
    values: [keys.map((k) => k.kind), keys.map((k) => k.key), iso(new Date())],
  });
  return byPosition(rows, keys.length);
});

/**
 * Marks tokens consumed; resolves whether this caller's UPDATE took the row. Two claims of one
 * token in one batch join the same row twice: PostgreSQL updates it once and returns one of them,
 * so exactly one caller wins, as with separate statements.
 */
const consumeRow = turnBatched<{ kind: string; key: string }, boolean>(async (keys) => {
  const { rows } = await pool.query<{ i: string }>({
    name: "oidc_model_consume_batch_v1",
    text: `UPDATE ${TABLE} m SET "consumedAt" = $3
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(kind, id, i)
           WHERE m.kind = k.kind AND m.id = k.id AND m."consumedAt" IS NULL
           RETURNING k.i`,
    values: [keys.map((k) => k.kind), keys.map((k) => k.key), iso(new Date())],
  });
  return byPosition(rows, keys.length).map((row) => row !== undefined);
});

/** Upserts; two saves of one row in a batch keep the later one, as two statements in call order would. */
const upsertRow = turnBatched<StoredRow, void>(async (rows) => {
  const last = new Map<string, StoredRow>();
  for (const row of rows) last.set(`${row.kind}\u0000${row.id}`, row);
  const unique = [...last.values()];
  const column = <K extends keyof StoredRow>(name: K) => unique.map((r) => r[name]);
  await pool.query({
    name: "oidc_model_upsert_batch_v1",
    text: `INSERT INTO ${TABLE} (kind, id, payload, "grantId", "userCode", uid, "clientId", "expiresAt")
           SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamp(3)[])
           ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, "grantId" = EXCLUDED."grantId",
             "userCode" = EXCLUDED."userCode", uid = EXCLUDED.uid, "clientId" = EXCLUDED."clientId",
             "expiresAt" = EXCLUDED."expiresAt"`,
    values: [
      column("kind"),
      column("id"),
      column("payload"),
      column("grantId"),
      column("userCode"),
      column("uid"),
      column("clientId"),
      column("expiresAt"),
    ],
  });
  return rows.map(() => undefined);
});

export class PgAdapter implements Adapter {
  private readonly hashesIds: boolean;

  constructor(private readonly kind: string) {
    this.hashesIds = SECRET_ID_KINDS.has(kind);
  }

  /** The row key for an id: the id itself, or its SHA-256 for bearer-value kinds. */
  private key(id: string): string {
    if (this.kind === "DeviceCode" && id.startsWith(DEVICE_CODE_REF)) return id.slice(DEVICE_CODE_REF.length);
    return this.hashesIds ? bearerRowKey(id) : id;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    if (this.kind === "Client") return; // clients are read-only here (the portal owns them)
    // find claimed it already (dpop.ts SpentJti); kept as long as the JWT could pass (a client assertion's exp).
    if (this.kind === "ReplayDetection") return extendReplayClaim(id, expiresIn);
    // An expired device code must still be found, so that polling learns `expired_token` (RFC 8628
    // §3.5) rather than invalid_grant: its row outlives its expiry by a while.
    const keep = this.kind === "DeviceCode" ? EXPIRED_DEVICE_CODE_KEPT_SECONDS : 0;
    const expiresAt = expiresIn ? iso(new Date(Date.now() + (expiresIn + keep) * 1000)) : null;
    await upsertRow({
      kind: this.kind,
      id: this.key(id),
      payload: JSON.stringify(this.hashesIds ? { ...payload, jti: undefined } : payload, storableStrings),
      grantId: payload.grantId ?? null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      // Filled so that deleting an app can revoke everything it was issued in one statement.
      clientId: payload.clientId ?? (typeof payload.params?.client_id === "string" ? payload.params.client_id : null),
      expiresAt,
    });
  }

  private async findWhere(column: "id" | "uid" | `"userCode"`, value: string): Promise<AdapterPayload | undefined> {
    if (column === "id") {
      const found = await findById({ kind: this.kind, key: value });
      if (!found) return undefined;
      return found.consumed ? { ...found.payload, consumed: true } : found.payload;
    }
    const { rows } = await pool.query<{ id: string; payload: AdapterPayload; consumed: boolean }>(
      `SELECT id, payload, "consumedAt" IS NOT NULL AS consumed FROM ${TABLE}
       WHERE kind = $1 AND ${column} = $2 AND ("expiresAt" IS NULL OR "expiresAt" > $3) LIMIT 1`,
      [this.kind, value, iso(new Date())],
    );
    const row = rows[0];
    if (!row) return undefined;
    const payload = column === `"userCode"` && this.hashesIds ? { ...row.payload, jti: `${DEVICE_CODE_REF}${row.id}` } : row.payload;
    return row.consumed ? { ...payload, consumed: true } : payload;
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    // An agent that cannot sign in (its metadata document refused, blocked, suspended) gets the
    // provider's invalid_client page with the reason (lib/oidc/agents.ts), never a 500.
    if (this.kind === "Client") return findClientMetadata(id, refuseAgent);
    // Ids are opaque strings of bounded size; anything longer is not ours (e.g. a JWT).
    if (!isLookupValue(id)) return undefined;
    if (id.startsWith(DEVICE_CODE_REF) && deviceCodeReferences.getStore() !== true) return undefined;
    // A DPoP proof's or a client assertion's jti (ReplayDetection.unique finds, then saves): claimed atomically instead, in
    // the table the fast paths and the API claim in (lib/oidc/dpop.ts), so two processes given one
    // proof at once cannot both find nothing, and a proof one path spent the other refuses.
    if (this.kind === "ReplayDetection") return (await claimReplayId(id)) ? undefined : { kind: "ReplayDetection", jti: id };
    const payload = await this.findWhere("id", this.key(id));
    return payload && this.hashesIds ? { ...payload, jti: id } : payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    if (!isLookupValue(uid)) return undefined;
    return this.findWhere("uid", uid);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    if (!isLookupValue(userCode)) return undefined;
    return this.findWhere(`"userCode"`, userCode);
  }

  async destroy(id: string): Promise<void> {
    if (!isLookupValue(id)) return;
    // oidc-provider destroys a Grant only to revoke it (lib/helpers/revoke.js: refresh-token reuse,
    // logout, token revocation): its access tokens die with it.
    if (this.kind === "Grant") return deleteGrantVoidingTokens(id, false);
    await pool.query(`DELETE FROM ${TABLE} WHERE kind = $1 AND id = $2`, [this.kind, this.key(id)]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await pool.query(`DELETE FROM ${TABLE} WHERE kind = $1 AND "grantId" = $2`, [this.kind, grantId]);
  }

  /**
   * oidc-provider checks `consumed` and then calls consume(): two concurrent redemptions of one code
   * or refresh token would both pass its check. The conditional UPDATE lets exactly one win; the
   * loser is treated as a replay: invalid_grant, and the grant is revoked (RFC 6749 §4.1.2).
   */
  async consume(rawId: string): Promise<void> {
    const id = this.key(rawId);
    if (await consumeRow({ kind: this.kind, key: id })) return;
    const { rows: existing } = await pool.query<{ grantId: string | null }>(
      `SELECT "grantId" FROM ${TABLE} WHERE kind = $1 AND id = $2`,
      [this.kind, id],
    );
    const grantId = existing[0]?.grantId;
    if (grantId) await revokeGrantEverywhere(grantId);
    logger.warn("concurrent redemption refused", { kind: this.kind, grantRevoked: Boolean(grantId) });
    throw new errors.InvalidGrant(`${this.kind === "RefreshToken" ? "refresh token" : "authorization code"} already used`);
  }
}

/** Deletes a grant and everything issued under it (codes, refresh tokens, stored access tokens). */
export async function revokeGrantEverywhere(grantId: string): Promise<void> {
  await deleteGrantVoidingTokens(grantId, true);
}

/**
 * Deletes a grant (and, with `withIssued`, everything issued under it) and voids the access tokens
 * of that person for that app: JWTs are verified locally, so without the (user, app) watermark
 * they would live on until they expire. One transaction, with its change announced.
 */
async function deleteGrantVoidingTokens(grantId: string, withIssued: boolean): Promise<void> {
  await pgTransactionWithChanges(async (client, announce) => {
    const { rows } = await client.query<{ accountId: string | null; clientId: string | null }>(
      `DELETE FROM ${TABLE} WHERE (kind = 'Grant' AND id = $1)${withIssued ? ` OR "grantId" = $1` : ""}
       RETURNING payload->>'accountId' AS "accountId", payload->>'clientId' AS "clientId"`,
      [grantId],
    );
    const owner = rows.find((r) => r.accountId && r.clientId);
    const userId = Number(owner?.accountId);
    if (owner?.clientId && Number.isSafeInteger(userId) && userId > 0) {
      await voidGrantTokensWith(client, userId, owner.clientId);
      await announce({ kind: "grant", userId, clientId: owner.clientId });
    }
  });
}

/** Deletes rows past their expiry; returns how many. */
export async function deleteExpiredOidcModels(now = new Date()): Promise<number> {
  const { rowCount } = await pool.query(`DELETE FROM ${TABLE} WHERE "expiresAt" < $1`, [iso(now)]);
  return rowCount ?? 0;
}

/** Periodic clean-up of expired rows; the timer never keeps the process alive. */
export function startExpiredModelCleanup(intervalMs = 10 * 60_000): () => void {
  const run = () =>
    Promise.all([deleteExpiredOidcModels(), deleteEndedCounters(), deleteExpiredSpentJtis()])
      // Then the listing rows of the sessions that just went.
      .then(async ([count, counters]) => [count, counters, await deleteEndedSignInSessions()] as const)
      .then(([count, counters, sessions]) => {
        if (count || counters || sessions) logger.debug("expired sign-in records removed", { count, counters, sessions });
      })
      .catch((error: unknown) => logger.warn("expired sign-in record clean-up failed", { error: (error as Error).message }));
  const first = setTimeout(run, 30_000);
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}

/** Read-only lookup of an interaction for the hosted pages (app/interaction). */
export async function findInteractionPayload(uid: string): Promise<AdapterPayload | undefined> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(uid)) return undefined;
  return new PgAdapter("Interaction").find(uid);
}
