import { setTimeout as sleep } from "node:timers/promises";
import type { Account, KoaContextWithOIDC } from "oidc-provider";
import { env } from "../env";
import { runPasswordCheck } from "../services/password-checks";
import { clientThrottleKey, reserveLoginAttempt, settleLoginAttempt } from "../services/throttle";
import { findAccountRow, type AccountRow } from "../queries/accounts";
import { LIVE_WORLD_ID } from "../schemas/sandboxes";
import { verifyUserCredentials, type CredentialCheck, type PasswordCheckTurn } from "../services/users";
import { findClientWorld } from "./clients";

/**
 * Accounts for oidc-provider: the platform's users. The account id is the decimal User.id, which
 * becomes `sub` in ID tokens and user-delegated access tokens.
 */
function absoluteUrl(path: string): string | undefined {
  if (!path) return undefined;
  try {
    return new URL(path, env().APP_URL).href;
  } catch {
    return undefined;
  }
}

/**
 * oidc-provider's findAccount: disabled or deleted users have no account (their grants stop
 * working). Nor has a person of another world than the client's (a sandbox's test user
 * for a live client, a live person for a sandbox client): the hosted login never signs them in
 * there, and a browser session of one world is no sign-in for the other's clients (config.ts asks
 * for a sign-in instead), nor is a code or refresh token carried across.
 */
export async function findAccount(ctx: KoaContextWithOIDC | undefined, id: string): Promise<Account | undefined> {
  if (!/^[1-9][0-9]{0,9}$/.test(id)) return undefined;
  const user = await findAccountRow(Number(id));
  if (!user || user.disabled) return undefined;
  const clientId = ctx?.oidc?.client?.clientId;
  if (clientId !== undefined && user.worldId !== (await findClientWorld(clientId))) return undefined;
  return {
    accountId: String(user.id),
    async claims() {
      return accountClaims(user);
    },
  };
}

/**
 * Whether a browser session's account is someone of another world than the client's, an
 * account findAccount therefore refused: an enabled person who exists, not a disabled or deleted one.
 */
export async function isAccountOfAnotherWorld(accountId: string, clientId: string): Promise<boolean> {
  if (!/^[1-9][0-9]{0,9}$/.test(accountId)) return false;
  const user = await findAccountRow(Number(accountId));
  if (!user || user.disabled) return false;
  return user.worldId !== (await findClientWorld(clientId));
}

/** Every claim an account has (oidc-provider filters them by scope; so does lib/oidc/refresh-grant.ts). */
export function accountClaims(user: AccountRow): { sub: string; preferred_username: string; name: string; picture?: string } {
  const picture = absoluteUrl(user.avatarUrl);
  return { sub: String(user.id), preferred_username: user.handle, name: user.displayName, ...(picture ? { picture } : {}) };
}

/** The gate turned the check away (line full, or no turn within the wait). */
class PasswordChecksBusy extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super("password checks saturated");
  }
}

export type SignInResult =
  | { ok: true; accountId: string; handle: string; hasSecondFactor: boolean }
  | { ok: false; error: "invalid_credentials" | "account_disabled" | "too_many_attempts"; retryAt?: Date }
  | { ok: false; error: "busy"; retryAfterSeconds: number };

/**
 * The hosted login form's check. The attempt is reserved in the throttle first (lib/services/
 * throttle.ts: per account and client IP, per IP, per account), so a refused attempt costs no
 * scrypt and parallel attempts cannot slip past the limit; an admitted one may wait (growing
 * delays) before the password is checked. One generic answer for an unknown user or a wrong
 * password (both cost one hash, both are throttled alike), and "disabled" only after the right
 * password. The check itself waits its turn at the password-check gate (lib/services/password-
 * checks.ts: one per client address in flight, a bounded line, a bounded wait); turned away there,
 * the attempt is given back and the answer is `busy` (the login page's 503). `trustedDevice` is the
 * nonce of the browser's valid trusted-device cookie for this account (lib/oidc/trusted-device.ts).
 */
export async function signInWithPassword(
  handle: string,
  password: string,
  ip: string,
  trustedDevice?: string,
  worldId: number = LIVE_WORLD_ID,
): Promise<SignInResult> {
  const normalized = handle.trim().replace(/^@/, "").toLowerCase();
  // A sandbox's test user is another account than a live person of the same handle; its
  // attempts are counted apart (the handle's rules leave no `@` in a live account's key).
  const throttleKey = worldId === LIVE_WORLD_ID ? normalized : `${normalized}@sandbox${worldId}`;
  const admission = await reserveLoginAttempt(throttleKey, ip, trustedDevice);
  if (!admission.ok) return { ok: false, error: "too_many_attempts", retryAt: admission.retryAt };
  const { reservation } = admission;
  // A server-side wait: the connection is held, no CPU is spent, no place in the gate's line taken.
  if (reservation.delayMs > 0) await sleep(reservation.delayMs);
  const client = clientThrottleKey(ip);
  const turn: PasswordCheckTurn = async (hash) => {
    const outcome = await runPasswordCheck(client, reservation.counters.ip.count, hash);
    if (!outcome.ok) throw new PasswordChecksBusy(outcome.retryAfterSeconds);
    return outcome.value;
  };
  let check: CredentialCheck;
  try {
    check = await verifyUserCredentials(normalized, password, turn, worldId);
  } catch (error) {
    if (!(error instanceof PasswordChecksBusy)) throw error;
    await settleLoginAttempt(reservation, "unchecked");
    return { ok: false, error: "busy", retryAfterSeconds: error.retryAfterSeconds };
  }
  // The right password for a disabled account is no guess to count.
  const passwordWasRight = check.ok || check.reason === "disabled";
  await settleLoginAttempt(reservation, passwordWasRight ? "success" : "failure");
  if (!check.ok) return { ok: false, error: check.reason === "disabled" ? "account_disabled" : "invalid_credentials" };
  return { ok: true, accountId: String(check.user.id), handle: check.user.handle, hasSecondFactor: check.user.hasSecondFactor };
}
