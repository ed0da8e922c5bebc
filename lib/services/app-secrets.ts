import { generateClientSecret, hashClientSecret, matchClientSecret, secretHint } from "../crypto/secrets";
import { transactionWithChanges } from "../database/changes";
import type { Tx } from "../database/client";
import { AppError } from "../errors";
import { findActiveSecrets, updateSecretLastUsedAt } from "../queries/app-secrets";
import type { RevealedSecret, SecretView } from "../schemas/apps";
import { assertCapability, capabilities, loadFor, lockApp } from "./app-access";
import { randomBase62 } from "./apps";
import type { Actor } from "./actor";
import { recordAudit } from "./audit";
import { isSandboxClientId } from "../schemas/sandboxes";
import { verifySandboxCredentials } from "./sandboxes";
import { lastUsedRecorder } from "./last-used";
import { revokeClientGrants, voidAppTokens } from "./token-revocation";

/**
 * The client secrets of API clients (rotation without downtime). An approved API client
 * holds one or two active secrets, and the token endpoint accepts either:
 *
 *   reveal  the first secret, shown once on the app page after approval (SPEC States)
 *   add     a second secret, shown once: deploy it, then retire the old one; no token is voided
 *   retire  removes one secret (never the last): it stops working at once; tokens already issued
 *           with it keep working until they expire
 *   roll    the compromise button: one new secret, shown once; every other secret stops working
 *           and every access token of the app is voided at once (the app's watermark)
 *
 * Only a SHA-256 hash and the last four characters are stored. Only the owner (or the operator's
 * CLI) may create a secret; admins see hints, never values. Every change is audited and announced.
 */
export const MAX_ACTIVE_SECRETS = 2;

type SecretAction = "reveal" | "add" | "retire" | "roll";

function toSecretView(row: { id: string; hint: string; createdAt: Date; lastUsedAt: Date | null }): SecretView {
  return { id: row.id, hint: row.hint, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt };
}

function newSecretId(): string {
  return `sec_${randomBase62(16)}`;
}

async function loadForSecretChange(clientId: string, actor: Actor, action: SecretAction) {
  const audit = `app.secret.${action}`;
  // Platform admins manage apps but never see (or mint) another team's secret (app-access.ts).
  const app = await loadFor(clientId, actor, "manage", audit);
  await assertCapability(app, actor, "handleSecrets", audit);
  if (app.type !== "api") throw new AppError("invalid_request", "A login client has no secret.");
  // Keys or a secret, never both (app-keys.ts): a key-holding app's token requests take no secret.
  if (action !== "retire" && app.jwks !== null) {
    throw new AppError("conflict", "This app authenticates with its keys (private_key_jwt) and holds no secret. Stop using keys first (apps keys clear).");
  }
  return app;
}

async function insertSecret(tx: Tx, applicationId: number, clientId: string): Promise<RevealedSecret> {
  const secret = generateClientSecret();
  const id = newSecretId();
  await tx.clientSecret.create({ data: { id, applicationId, hash: hashClientSecret(secret), hint: secretHint(secret) } });
  return { clientId, secretId: id, clientSecret: secret, secretHint: secretHint(secret) };
}

/** The active secrets (hint, created, last used), oldest first; the team, platform admins and the operator. */
export async function listSecrets(clientId: string, actor: Actor): Promise<SecretView[]> {
  const app = await loadFor(clientId, actor, "view", "app.secret.list");
  if (app.type !== "api") throw new AppError("invalid_request", "A login client has no secret.");
  return app.secrets.map(toSecretView);
}

/**
 * An approved API client without a secret yet: its owner's next visit to the app page reveals the
 * first one (revealSecretOnce). My apps shows "secret ready" for it; asking reveals nothing.
 */
export function isSecretWaiting(app: { type: string; status: string; hasSecret: boolean; clientKeys: unknown }): boolean {
  // An app that authenticates with its keys (private_key_jwt, app-keys.ts) holds no secret at all.
  return app.type === "api" && app.status === "approved" && !app.hasSecret && app.clientKeys === null;
}

/**
 * SPEC: "the client secret is revealed once on the application page" after approval. For an
 * approved API client that has no secret yet, generate one, store only its hash, and return it;
 * otherwise null. Under the app's row lock, so two concurrent page loads cannot both reveal. Only
 * the owner, a team admin (or the operator) triggers it: a platform admin or a viewer looking at the
 * app must not consume the team's one reveal.
 */
export async function revealSecretOnce(clientId: string, actor: Actor): Promise<RevealedSecret | null> {
  const app = await loadFor(clientId, actor, "view", "app.secret.reveal");
  if (!capabilities(app, actor).handleSecrets) return null;
  if (!isSecretWaiting({ type: app.type, status: app.status, hasSecret: app.secrets.length > 0, clientKeys: app.jwks })) return null;
  return transactionWithChanges(async (tx, announce) => {
    // The app's row lock (lockApp) serializes secret changes: the two-secret limit, the first reveal.
    const locked = await lockApp(tx, clientId);
    if (locked.status !== "approved" || locked.jwks !== null) return null;
    if ((await tx.clientSecret.count({ where: { applicationId: locked.id } })) > 0) return null;
    const revealed = await insertSecret(tx, locked.id, clientId);
    await recordAudit(
      { actor, action: "app.secret.reveal", targetType: "app", targetId: clientId, detail: { id: revealed.secretId } },
      tx,
    );
    await announce({ kind: "app", clientId });
    return revealed;
  });
}

function requireApproved(status: string): void {
  if (status !== "approved") {
    throw new AppError("conflict", `The application is ${status}; only an approved API client gets new secrets.`);
  }
}

/**
 * A second secret for zero-downtime rotation, shown once. Refused while two are active (retire
 * one first). Nothing else changes: the existing secret and every token keep working.
 */
export async function addSecret(clientId: string, actor: Actor): Promise<RevealedSecret> {
  await loadForSecretChange(clientId, actor, "add");
  return transactionWithChanges(async (tx, announce) => {
    const locked = await lockApp(tx, clientId);
    requireApproved(locked.status);
    const active = await tx.clientSecret.count({ where: { applicationId: locked.id } });
    if (active >= MAX_ACTIVE_SECRETS) {
      throw new AppError(
        "conflict",
        `The application already has ${MAX_ACTIVE_SECRETS} active secrets. Retire one before adding another.`,
      );
    }
    const revealed = await insertSecret(tx, locked.id, clientId);
    await recordAudit(
      { actor, action: "app.secret.add", targetType: "app", targetId: clientId, detail: { id: revealed.secretId } },
      tx,
    );
    await announce({ kind: "app", clientId });
    return revealed;
  });
}

/**
 * Retires one secret: token requests with it fail with invalid_client at once, in every process.
 * Access tokens already issued with it keep working until they expire (roll voids them). The last
 * active secret cannot be retired (the app would have no way in; roll replaces it instead).
 */
export async function retireSecret(clientId: string, secretId: string, actor: Actor): Promise<SecretView> {
  await loadForSecretChange(clientId, actor, "retire");
  return transactionWithChanges(async (tx, announce) => {
    const locked = await lockApp(tx, clientId);
    const secrets = await tx.clientSecret.findMany({ where: { applicationId: locked.id } });
    const target = secrets.find((s) => s.id === secretId);
    if (!target) throw new AppError("not_found", `No active secret "${secretId}" on ${clientId}.`);
    if (secrets.length <= 1) {
      throw new AppError(
        "conflict",
        "This is the application's only active secret and cannot be retired. Add a new secret first, or roll the secret.",
      );
    }
    await tx.clientSecret.delete({ where: { id: secretId } });
    await recordAudit(
      { actor, action: "app.secret.retire", targetType: "app", targetId: clientId, detail: { id: secretId, hint: target.hint } },
      tx,
    );
    await announce({ kind: "app", clientId });
    return toSecretView(target);
  });
}

/**
 * The compromise button: one new secret (shown once), every other secret retired, and every access
 * token of the app voided, all at once and in every process.
 */
export async function rollSecret(clientId: string, actor: Actor): Promise<RevealedSecret> {
  await loadForSecretChange(clientId, actor, "roll");
  return transactionWithChanges(async (tx, announce) => {
    const locked = await lockApp(tx, clientId);
    requireApproved(locked.status);
    const { count: retired } = await tx.clientSecret.deleteMany({ where: { applicationId: locked.id } });
    const revealed = await insertSecret(tx, locked.id, clientId);
    const revoked = await revokeClientGrants(tx, clientId, false);
    await recordAudit(
      {
        actor,
        action: "app.secret.roll",
        targetType: "app",
        targetId: clientId,
        detail: { id: revealed.secretId, retired, ...(revoked ? { revoked } : {}) },
      },
      tx,
    );
    await voidAppTokens(tx, clientId);
    await announce({ kind: "app", clientId });
    return revealed;
  });
}

/**
 * Checks a presented secret against the client's active ones. Returns the app's token watermark on
 * success (issuers wait past it: lib/oidc/access-tokens.ts waitPastRevocation), or null.
 */
export async function verifyClientCredentials(
  clientId: string,
  secret: string,
): Promise<{ tokensRevokedAt: number | null } | null> {
  // A sandbox client's one secret (lib/services/sandboxes.ts), off the live hot path.
  if (isSandboxClientId(clientId)) return verifySandboxCredentials(clientId, secret);
  // Read fresh (no cache): a retired or rolled secret fails at once, in every process, whatever the
  // change channel does.
  const active = await findActiveSecrets(clientId);
  if (!active) return null;
  const match = matchClientSecret(secret, active.secrets);
  if (!match) return null;
  noteSecretUsed(match.id);
  return { tokensRevokedAt: active.tokensRevokedAt };
}

/** Records a successful use, at most once a minute per secret and process; never delays the grant. */
const noteSecretUsed = lastUsedRecorder("secret", 10_000, updateSecretLastUsedAt);
