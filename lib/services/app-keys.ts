import { createPublicKey, type JsonWebKey } from "node:crypto";
import { transactionWithChanges } from "../database/changes";
import { Prisma } from "../database/client";
import { AppError } from "../errors";
import { logger } from "../logger";
import type { AppView } from "../schemas/apps";
import { assertCapability, loadFor, lockApp } from "./app-access";
import { toAppView } from "./apps";
import type { Actor } from "./actor";
import { recordAudit } from "./audit";
import { fetchPublicKeySet, publicKeySetProblem, type PublicJwk } from "./key-sets";

/**
 * Keys instead of shared secrets (RFC 7523 private_key_jwt, issue 42 item 3). An API or login client
 * may authenticate at the token endpoint with a JWT it signs with its own private key; the platform
 * holds only the public keys, pasted or fetched from the app's jwks_uri (lib/services/key-sets.ts,
 * as agents' keys: public https, no redirects, 16 KiB), and checked: a JWK Set of 1 to 10 public
 * signing keys that import, RSA of 2048 bits or more. Setting them removes every client secret of the
 * app (such an app holds no secret at all: a token request with one gets invalid_client); clearing
 * them makes an API client's page reveal a new secret, and a login client public again (PKCE).
 *
 * oidc-provider checks each assertion (signature with these keys, `aud`, `exp`, `jti` once for every
 * process: lib/oidc/dpop.ts SpentJti). Keys from a jwks_uri are fetched again when older than
 * KEYS_REFRESH_MS on the next sign-in client load (lib/oidc/clients.ts), so a rotation at the
 * developer's URL reaches the platform within that. The same capability as secrets (handleSecrets:
 * the owner, team admins, the operator), the same gate, audited and announced.
 */

/** How old fetched keys may get before the next use fetches them again. */
export const KEYS_REFRESH_MS = 10 * 60_000;
/** A pasted key set at most (as a jwks_uri's). */
const MAX_PASTED_BYTES = 16 * 1024;
const MIN_RSA_BITS = 2048;

export type KeysInput = { jwksUri: string } | { jwks: unknown };
type ClientKeys = NonNullable<AppView["clientKeys"]>;

async function loadForKeysChange(clientId: string, actor: Actor, action: "set" | "clear") {
  const audit = `app.keys.${action}`;
  const app = await loadFor(clientId, actor, "manage", audit);
  await assertCapability(app, actor, "handleSecrets", audit);
  if (app.type === "agent") throw new AppError("invalid_request", "An AI agent's keys come from its Client ID Metadata Document's jwks_uri.");
  return app;
}

/** The keys of a pasted JWK Set (or a single JWK), checked; AppError("invalid_request") says what is wrong. */
export function checkPastedKeys(value: unknown): PublicJwk[] {
  let parsed = value;
  if (typeof value === "string") {
    if (Buffer.byteLength(value) > MAX_PASTED_BYTES) throw new AppError("invalid_request", `The key set is larger than ${MAX_PASTED_BYTES / 1024} KiB.`);
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new AppError("invalid_request", "The key set is not JSON: paste a JWK Set ({\"keys\": [...]}) or one public JWK.");
    }
  }
  // One JWK is a set of one.
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed) && "kty" in parsed && !("keys" in parsed)) parsed = { keys: [parsed] };
  return checkKeys(parsed, "The key set");
}

function checkKeys(value: unknown, what: string): PublicJwk[] {
  const problem = publicKeySetProblem(value);
  if (problem) throw new AppError("invalid_request", `${what} ${problem}`);
  const keys = (value as { keys: PublicJwk[] }).keys;
  keys.forEach((key, index) => {
    let bits: number | undefined;
    try {
      bits = createPublicKey({ key: key as JsonWebKey, format: "jwk" }).asymmetricKeyDetails?.modulusLength;
    } catch {
      throw new AppError("invalid_request", `${what}'s key ${index + 1} is not a valid public key.`);
    }
    if (key.kty === "RSA" && (bits ?? 0) < MIN_RSA_BITS) throw new AppError("invalid_request", `${what}'s key ${index + 1} is an RSA key of ${bits} bits: use ${MIN_RSA_BITS} or more.`);
  });
  return keys;
}

/** The key set at `jwksUri`, fetched under the agents' outbound rules and checked. */
async function fetchKeys(jwksUri: string): Promise<PublicJwk[]> {
  const keys = await fetchPublicKeySet(jwksUri, "The app's", (message) => new AppError("invalid_request", message));
  return checkKeys({ keys }, `The key set at ${jwksUri}`);
}

function viewOf(row: Parameters<typeof toAppView>[0]): ClientKeys {
  return toAppView(row).clientKeys!;
}

/**
 * The app authenticates with these keys from now on (private_key_jwt): every secret it had is
 * retired at once (tokens already issued keep working until they expire). Replaces earlier keys.
 */
export async function setAppKeys(clientId: string, actor: Actor, input: KeysInput): Promise<ClientKeys> {
  await loadForKeysChange(clientId, actor, "set");
  const jwksUri = "jwksUri" in input ? input.jwksUri : null;
  const keys = jwksUri !== null ? await fetchKeys(jwksUri) : checkPastedKeys((input as { jwks: unknown }).jwks);
  return transactionWithChanges(async (tx, announce) => {
    const locked = await lockApp(tx, clientId);
    const { count: retiredSecrets } = await tx.clientSecret.deleteMany({ where: { applicationId: locked.id } });
    await tx.application.update({ where: { id: locked.id }, data: { jwks: { keys } as Prisma.InputJsonObject, jwksUri, jwksUpdatedAt: new Date() } });
    await recordAudit(
      {
        actor,
        action: "app.keys.set",
        targetType: "app",
        targetId: clientId,
        detail: { jwksUri, keys: keys.map((k) => ({ kid: k.kid ?? null, kty: k.kty })), ...(retiredSecrets ? { retiredSecrets } : {}) },
      },
      tx,
    );
    await announce({ kind: "app", clientId });
    return viewOf(await lockApp(tx, clientId));
  });
}

/** Back to a secret (API clients: the app page reveals a new one) or to a public client (login). */
export async function clearAppKeys(clientId: string, actor: Actor): Promise<void> {
  await loadForKeysChange(clientId, actor, "clear");
  await transactionWithChanges(async (tx, announce) => {
    const locked = await lockApp(tx, clientId);
    if (locked.jwks === null) throw new AppError("conflict", `${clientId} has no keys to remove.`);
    await tx.application.update({ where: { id: locked.id }, data: { jwks: Prisma.DbNull, jwksUri: null, jwksUpdatedAt: null } });
    await recordAudit({ actor, action: "app.keys.clear", targetType: "app", targetId: clientId, detail: { jwksUri: locked.jwksUri } }, tx);
    await announce({ kind: "app", clientId });
  });
}

const refreshing = new Set<string>();

/**
 * Fetches a client's jwks_uri again when its keys are older than KEYS_REFRESH_MS (at most one fetch
 * per client at a time in a process), stores them and announces the change, so every process loads
 * the new keys. A failed fetch keeps the keys it had (logged); the next load tries again.
 */
export function refreshStaleKeys(client: { clientId: string; jwksUri: string | null; jwksUpdatedAt: Date | null }): void {
  const { clientId, jwksUri, jwksUpdatedAt } = client;
  if (jwksUri === null || (jwksUpdatedAt && Date.now() - jwksUpdatedAt.getTime() < KEYS_REFRESH_MS) || refreshing.has(clientId)) return;
  refreshing.add(clientId);
  fetchKeys(jwksUri)
    .then((keys) =>
      transactionWithChanges(async (tx, announce) => {
        // Only if nobody changed the keys meanwhile.
        const { count } = await tx.application.updateMany({ where: { clientId, jwksUri }, data: { jwks: { keys } as Prisma.InputJsonObject, jwksUpdatedAt: new Date() } });
        if (count) await announce({ kind: "app", clientId });
      }),
    )
    .catch((error: unknown) => logger.warn("app key set refresh failed", { clientId, jwksUri, error: (error as Error).message }))
    .finally(() => refreshing.delete(clientId));
}
