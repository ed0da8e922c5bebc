import { isSandboxClientId } from "../schemas/sandboxes";
import { reserveDeviceCodeEntry } from "../services/throttle";
import { findUserById } from "../services/users";
import { PgAdapter } from "./adapter";
import { findSignInClient } from "./clients";

/**
 * What the device sign-in page (pages/interaction/device.tsx) shows about a user code: read-only,
 * from the stored device code, never from the URL, so a crafted link cannot name another app.
 * The confirmation form posts to oidc-provider, which checks everything again.
 */
export interface DeviceRequestView {
  /** As the device shows it: XXXX-XXXX. */
  userCode: string;
  /** `sandbox`: a sandbox client's request (its page shows the banner). */
  client: { clientId: string; name: string; ownerHandle: string | null; sandbox: boolean };
  scopes: string[];
}

/** oidc-provider's user-code normalization (lib/helpers/user_codes.js): upper case, no separators. */
export function normalizeUserCode(input: string): string {
  return input.toUpperCase().replace(/\W/g, "");
}

/** A waiting device request by user code, or null (unknown, expired, used, cancelled, or its app is gone). */
export async function findDeviceRequestView(userCode: string): Promise<DeviceRequestView | null> {
  const normalized = normalizeUserCode(userCode);
  if (!/^[A-Z0-9]{1,32}$/.test(normalized)) return null;
  const payload = (await new PgAdapter("DeviceCode").findByUserCode(normalized)) as
    | { clientId?: string; exp?: number; error?: string; accountId?: string; params?: { scope?: unknown } }
    | undefined;
  if (!payload?.clientId || payload.error || payload.accountId) return null;
  if (typeof payload.exp === "number" && payload.exp * 1000 <= Date.now()) return null;
  const client = await findSignInClient(payload.clientId);
  if (!client) return null;
  const owner = await findUserById(client.ownerId);
  return {
    userCode: normalized.length === 8 ? `${normalized.slice(0, 4)}-${normalized.slice(4)}` : normalized,
    client: { clientId: client.clientId, name: client.name, ownerHandle: owner?.handle ?? null, sandbox: isSandboxClientId(client.clientId) },
    scopes: typeof payload.params?.scope === "string" ? payload.params.scope.split(" ").filter(Boolean) : [],
  };
}

export type CountedDeviceRequestView = { ok: true; view: DeviceRequestView | null } | { ok: false; retryAt: Date };

/**
 * findDeviceRequestView for a code that came from the client (the page's `?step=confirm&user_code=`),
 * counted like a code typed into the form: every lookup is one entry against the client's
 * user-code limit (lib/services/throttle.ts), given back only when the code was found, so the page
 * cannot be used to try codes past the limit.
 */
export async function findDeviceRequestViewCounted(userCode: string, ip: string): Promise<CountedDeviceRequestView> {
  const admission = await reserveDeviceCodeEntry(ip);
  if (!admission.ok) return { ok: false, retryAt: admission.retryAt };
  const view = await findDeviceRequestView(userCode);
  if (view) await admission.release();
  return { ok: true, view };
}
