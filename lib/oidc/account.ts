import type { Account, KoaContextWithOIDC } from "oidc-provider";
import { env } from "../env";
import { clearFailures, findThrottledUntil, loginThrottleRules, recordFailure } from "../services/throttle";
import { findUserById, verifyUserCredentials } from "../services/users";

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

/** oidc-provider's findAccount: disabled or deleted users have no account (their grants stop working). */
export async function findAccount(_ctx: KoaContextWithOIDC | undefined, id: string): Promise<Account | undefined> {
  if (!/^[1-9][0-9]{0,9}$/.test(id)) return undefined;
  const user = await findUserById(Number(id));
  if (!user || user.disabled) return undefined;
  return {
    accountId: String(user.id),
    async claims() {
      return {
        sub: String(user.id),
        preferred_username: user.handle,
        name: user.displayName,
        ...(absoluteUrl(user.avatarUrl) ? { picture: absoluteUrl(user.avatarUrl) } : {}),
      };
    },
  };
}

export type SignInResult =
  | { ok: true; accountId: string }
  | { ok: false; error: "invalid_credentials" | "account_disabled" | "too_many_attempts"; retryAt?: Date };

/**
 * The hosted login form's check: throttled per account and per IP (failures only), one generic
 * answer for an unknown user or a wrong password (verifyUserCredentials costs the same either way),
 * and "disabled" only after the right password.
 */
export async function signInWithPassword(handle: string, password: string, ip: string): Promise<SignInResult> {
  const normalized = handle.trim().replace(/^@/, "").toLowerCase();
  const rules = loginThrottleRules(normalized, ip);
  const throttledUntil = await findThrottledUntil(rules);
  if (throttledUntil) return { ok: false, error: "too_many_attempts", retryAt: throttledUntil };
  const check = await verifyUserCredentials(normalized, password);
  if (!check.ok) {
    if (check.reason === "disabled") return { ok: false, error: "account_disabled" };
    await recordFailure(rules);
    return { ok: false, error: "invalid_credentials" };
  }
  await clearFailures([rules[0]!.key]);
  return { ok: true, accountId: String(check.user.id) };
}
