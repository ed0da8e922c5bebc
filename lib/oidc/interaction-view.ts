import type { AppIdentityData } from "../schemas/apps";
import { describeScope } from "../scopes";
import { findAppIdentity } from "../services/apps";
import { findConsentScopes } from "../services/consents";
import { findUserById } from "../services/users";
import { isSandboxClientId, SANDBOX_CLIENT_PREFIX } from "../schemas/sandboxes";
import { findInteractionPayload } from "./adapter";
import { findSignInClient } from "./clients";
import { isStepUpPrompt } from "./second-factor";
import { findSignInChallenge, secondFactorKinds } from "../services/second-factors";

/**
 * What the hosted login and consent pages show (app/interaction/[uid]), from a read-only lookup of
 * the interaction by uid. The page only renders; the form posts go to lib/oidc/interactions.ts,
 * which re-checks everything against the interaction cookie.
 */
export interface InteractionView {
  uid: string;
  prompt: "login" | "consent";
  /** The authorization request's `ui_locales` (the hosted page's language). */
  uiLocales: string | undefined;
  /** A device sign-in (RFC 8628): the app runs on another device, so nothing "returns to" it. */
  device: boolean;
  /** `ownerHandle` and `account` are read for the consent page only (null on the login page). */
  client: {
    clientId: string;
    name: string;
    ownerHandle: string | null;
    firstParty: boolean;
    sandbox: boolean;
    /** An AI agent's client: its verified domain and whether the admins trust it. */
    agent: { domain: string; reviewed: boolean } | null;
  };
  scopes: { scope: string; description: string }[];
  account: { handle: string; displayName: string } | null;
  /** The consent page only (null on the login page). */
  consent: ConsentDetails | null;
  /**
   * The login prompt asks for the second factor of this account instead of the password:
   * after this interaction's right password (a challenge), or for a step-up of the session's account.
   */
  secondFactor: { handle: string; stepUp: boolean; passkey: boolean; totp: boolean } | null;
}

/**
 * Who asks and whether it asked before: the app's approved identity (read apart from the
 * hot client cache, lib/oidc/clients.ts), and the scopes this person already allowed. "first": no
 * earlier consent; "more": the request adds scopes to an earlier consent (`added` lists them);
 * "again": an earlier consent covers the request (the provider asks anyway, e.g. prompt=consent).
 */
export interface ConsentDetails {
  identity: AppIdentityData;
  kind: "first" | "more" | "again";
  /** Requested scopes not allowed before ("more" only). */
  added: string[];
}

export async function findInteractionView(uid: string): Promise<InteractionView | null> {
  const payload = (await findInteractionPayload(uid)) as
    | {
        prompt?: { name?: string; reasons?: string[] };
        params?: { client_id?: unknown; scope?: unknown; ui_locales?: unknown };
        session?: { accountId?: string };
        result?: unknown;
        deviceCode?: unknown;
      }
    | undefined;
  // A finished interaction (result recorded) cannot be answered again.
  if (!payload?.prompt?.name || payload.result) return null;
  const prompt = payload.prompt.name;
  if (prompt !== "login" && prompt !== "consent") return null;
  const clientId = typeof payload.params?.client_id === "string" ? payload.params.client_id : "";
  const client = await findSignInClient(clientId);
  if (!client) return null;
  const scopes = (typeof payload.params?.scope === "string" ? payload.params.scope.split(" ") : [])
    .filter(Boolean)
    .map((scope) => ({ scope, description: describeScope(scope) }));
  // The login page shows only the app's name: who built it and who is signed in are the consent
  // page's (their lookups are left off every sign-in's login page).
  const isConsent = prompt === "consent";
  const accountId = payload.session?.accountId;
  const [owner, user] = isConsent
    ? await Promise.all([client.agent ? null : findUserById(client.ownerId), accountId && /^[0-9]+$/.test(accountId) ? findUserById(Number(accountId)) : null])
    : [null, null];
  const secondFactor = prompt === "login" ? await findSecondFactorStep(uid, payload.prompt.reasons, accountId) : null;
  return {
    uid,
    prompt,
    uiLocales: typeof payload.params?.ui_locales === "string" ? payload.params.ui_locales : undefined,
    device: typeof payload.deviceCode === "string",
    client: {
      clientId: client.clientId,
      name: client.name,
      ownerHandle: owner?.handle ?? null,
      firstParty: client.firstParty,
      sandbox: isSandboxClientId(client.clientId),
      agent: client.agent ? { domain: client.agent.domain, reviewed: client.agent.policy === "trusted" } : null,
    },
    scopes,
    account: user ? { handle: user.handle, displayName: user.displayName } : null,
    consent: isConsent ? await findConsentDetails(client.clientId, user?.id ?? null, scopes.map((s) => s.scope)) : null,
    secondFactor,
  };
}

async function findSecondFactorStep(uid: string, reasons: string[] | undefined, sessionAccountId: string | undefined): Promise<InteractionView["secondFactor"]> {
  const stepUp = isStepUpPrompt(reasons) && sessionAccountId !== undefined && /^[0-9]+$/.test(sessionAccountId);
  const userId = stepUp ? Number(sessionAccountId) : (await findSignInChallenge(uid))?.userId;
  if (!userId) return null;
  const user = await findUserById(userId);
  if (!user || user.disabled) return null;
  const { passkey, totp } = await secondFactorKinds(user.id);
  return { handle: user.handle, stepUp, passkey, totp };
}

/** The app behind a client id: itself, or the app of a sandbox client (`sbx_` + its client id). */
function appClientIdOf(clientId: string): string {
  return isSandboxClientId(clientId) ? clientId.slice(SANDBOX_CLIENT_PREFIX.length) : clientId;
}

async function findConsentDetails(clientId: string, userId: number | null, requested: string[]): Promise<ConsentDetails | null> {
  const [identity, previous] = await Promise.all([
    // A sandbox client shows its app's identity (the consent is remembered for the sandbox client).
    findAppIdentity(appClientIdOf(clientId)),
    userId === null ? Promise.resolve(null) : findConsentScopes(userId, clientId),
  ]);
  if (!identity) return null;
  const added = previous ? requested.filter((scope) => !previous.includes(scope)) : [];
  return {
    identity: { ...identity, owner: identity.owner ?? null },
    kind: previous === null ? "first" : added.length ? "more" : "again",
    added,
  };
}

/** The logout confirmation page names the app that asked, when it identified itself. */
export async function findClientName(clientId: string | undefined): Promise<string | null> {
  if (!clientId) return null;
  return (await findSignInClient(clientId))?.name ?? null;
}
