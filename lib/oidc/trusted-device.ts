import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { HANDLE_PATTERN } from "../schemas/users";
import { getCookieKeys } from "../services/settings";
import { isHttps } from "./config";
import { TRUSTED_DEVICE_COOKIE_PATH, TRUSTED_DEVICE_COOKIE_PREFIX } from "./constants";

/**
 * Trusted-device cookies (OWASP Blocking Brute Force Attacks, "device cookies"): after a
 * successful sign-in the browser gets a cookie naming the account, signed by the platform. While an
 * account is locked by failures from elsewhere (lib/services/throttle.ts), a browser that shows a
 * valid one for it keeps full access: the lock holds the attackers, not the owner's own browsers.
 *
 * One cookie per account (`_trusted_<handle>`), value `<nonce>.<issued, Unix s>.<HMAC-SHA256>`
 * (base64url) over `v1|handle|nonce|issued`. The HMAC key is derived from the cookie signing keys
 * the platform already keeps (COOKIE_SECRETS, or the generated one in the database), never a
 * secret of its own in the code; every key of a rotation is accepted, the newest signs.
 */
export const TRUSTED_DEVICE_TTL_SECONDS = 180 * 24 * 3600;

let derived: { source: string[]; keys: Buffer[] } | undefined;

async function signingKeys(): Promise<Buffer[]> {
  const source = await getCookieKeys();
  if (!derived || derived.source.join(",") !== source.join(",")) {
    // A key of its own per purpose: the cookie key itself also signs oidc-provider's cookies.
    derived = { source, keys: source.map((key) => createHmac("sha256", key).update("platform trusted-device cookie v1").digest()) };
  }
  return derived.keys;
}

function mac(key: Buffer, handle: string, nonce: string, issued: string): Buffer {
  return createHmac("sha256", key).update(`v1|${handle}|${nonce}|${issued}`).digest();
}

function cookieName(handle: string): string {
  return `${TRUSTED_DEVICE_COOKIE_PREFIX}${handle}`;
}

/** The Cookie header's value for `name`, if any (the first one, as browsers send the most specific first). */
function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The nonce of this browser's valid trusted-device cookie for `handle` (normalized), or undefined:
 * absent, forged, for another account, or older than TRUSTED_DEVICE_TTL_SECONDS.
 */
export async function findTrustedDevice(req: IncomingMessage, handle: string): Promise<string | undefined> {
  if (!HANDLE_PATTERN.test(handle)) return undefined;
  const value = readCookie(req, cookieName(handle));
  const [nonce, issued, signature, ...rest] = value?.split(".") ?? [];
  if (!nonce || !issued || !signature || rest.length || !/^[A-Za-z0-9_-]{22}$/.test(nonce) || !/^\d{1,12}$/.test(issued)) return undefined;
  if (Number(issued) + TRUSTED_DEVICE_TTL_SECONDS < Date.now() / 1000) return undefined;
  const given = Buffer.from(signature, "base64url");
  for (const key of await signingKeys()) {
    const expected = mac(key, handle, nonce, issued);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return nonce;
  }
  return undefined;
}

/** Appends a Set-Cookie to whatever the response already sets (oidc-provider adds its own after). */
function appendSetCookie(res: ServerResponse, cookie: string): void {
  const existing = res.getHeader("set-cookie");
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader("set-cookie", [...list, cookie]);
}

/** After a successful sign-in to `handle`: this browser is trusted for that account from now on. */
export async function rememberTrustedDevice(res: ServerResponse, handle: string): Promise<void> {
  if (!HANDLE_PATTERN.test(handle)) return;
  const [key] = await signingKeys();
  if (!key) return;
  const nonce = randomBytes(16).toString("base64url");
  const issued = String(Math.floor(Date.now() / 1000));
  const value = `${nonce}.${issued}.${mac(key, handle, nonce, issued).toString("base64url")}`;
  appendSetCookie(
    res,
    [
      `${cookieName(handle)}=${value}`,
      `Path=${TRUSTED_DEVICE_COOKIE_PATH}`,
      `Max-Age=${TRUSTED_DEVICE_TTL_SECONDS}`,
      "HttpOnly",
      "SameSite=Lax",
      ...(isHttps() ? ["Secure"] : []),
    ].join("; "),
  );
}
