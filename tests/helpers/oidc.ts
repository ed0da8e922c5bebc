import { createHash, randomBytes } from "node:crypto";
import { hashPassword } from "../../lib/crypto/passwords";
import { generateClientSecret, hashClientSecret, secretHint } from "../../lib/crypto/secrets";
import { query } from "./db";
import type { TestServer } from "./server";

/**
 * Sign-in helpers for integration tests (any area): apps and users straight in the database, client
 * credentials tokens, and the full authorization code + PKCE flow over real HTTP with a cookie jar,
 * driving the hosted login form by POSTing it (no browser, no Next needed).
 */

type ServerLike = Pick<TestServer, "url" | "issuer">;

export interface TestAppOptions {
  type: "api" | "login";
  scopes?: string[];
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  status?: "pending" | "approved" | "rejected" | "suspended";
  /** Owner; created (without a password) when missing. Default "testdev". */
  ownerHandle?: string;
  firstParty?: boolean;
  name?: string;
  /** Login clients: allow device sign-in (RFC 8628). */
  deviceFlow?: boolean;
}

export interface TestApp {
  clientId: string;
  /** Only for API clients. */
  clientSecret?: string;
}

async function ensureUserId(databaseUrl: string, handle: string): Promise<number> {
  const rows = await query<{ id: number }>(
    databaseUrl,
    `INSERT INTO "User" (handle, "displayName", "updatedAt") VALUES ($1, $2, now())
     ON CONFLICT ("worldId", handle) DO UPDATE SET handle = EXCLUDED.handle RETURNING id`,
    [handle, handle],
  );
  return rows[0]!.id;
}

/** Creates an application row (approved by default). API clients get a fresh secret. */
export async function createTestApp(databaseUrl: string, options: TestAppOptions): Promise<TestApp> {
  const ownerId = await ensureUserId(databaseUrl, options.ownerHandle ?? "testdev");
  const clientId = `${options.type === "api" ? "api" : "app"}_test${randomBytes(10).toString("hex")}`;
  const clientSecret = options.type === "api" ? generateClientSecret() : undefined;
  const [app] = await query<{ id: number }>(
    databaseUrl,
    `INSERT INTO "Application" ("clientId", name, type, status, "ownerId",
       "redirectUris", "postLogoutRedirectUris", scopes, "firstParty", "deviceFlow", "updatedAt")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now()) RETURNING id`,
    [
      clientId,
      options.name ?? `Test ${options.type} app`,
      options.type,
      options.status ?? "approved",
      ownerId,
      options.redirectUris ?? (options.type === "login" ? ["http://localhost:9/callback"] : []),
      options.postLogoutRedirectUris ?? [],
      options.scopes ?? [],
      options.firstParty ?? false,
      options.deviceFlow ?? false,
    ],
  );
  if (clientSecret) {
    await query(
      databaseUrl,
      `INSERT INTO "ClientSecret" (id, "applicationId", hash, hint) VALUES ($1, $2, $3, $4)`,
      [`sec_test${randomBytes(8).toString("hex")}`, app!.id, hashClientSecret(clientSecret), secretHint(clientSecret)],
    );
  }
  return { clientId, ...(clientSecret ? { clientSecret } : {}) };
}

/** Creates (or resets) a user with a password. */
export async function createTestUser(
  databaseUrl: string,
  options: { handle: string; password: string; disabled?: boolean; displayName?: string },
): Promise<{ id: number; handle: string }> {
  const handle = options.handle.toLowerCase();
  const rows = await query<{ id: number }>(
    databaseUrl,
    `INSERT INTO "User" (handle, "displayName", "passwordHash", disabled, "updatedAt") VALUES ($1, $2, $3, $4, now())
     ON CONFLICT ("worldId", handle) DO UPDATE SET "passwordHash" = EXCLUDED."passwordHash", disabled = EXCLUDED.disabled
     RETURNING id`,
    [handle, options.displayName ?? handle, await hashPassword(options.password), options.disabled ?? false],
  );
  return { id: rows[0]!.id, handle };
}

export async function setAppStatus(databaseUrl: string, clientId: string, status: TestAppOptions["status"]): Promise<void> {
  await query(databaseUrl, `UPDATE "Application" SET status = $2 WHERE "clientId" = $1`, [clientId, status]);
}

export function tokenEndpoint(server: ServerLike): string {
  return `${server.issuer}/protocol/openid-connect/token`;
}

export function authorizationEndpoint(server: ServerLike): string {
  return `${server.issuer}/protocol/openid-connect/auth`;
}

/** POSTs a form to the token endpoint; returns status, parsed JSON body and headers. */
export async function tokenRequest(
  server: ServerLike,
  form: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const body = new URLSearchParams(Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined));
  const res = await fetch(tokenEndpoint(server), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
  refresh_token?: string;
  id_token?: string;
}

/** Client credentials with client_secret_post; throws unless 200. */
export async function clientCredentialsToken(
  server: ServerLike,
  clientId: string,
  clientSecret: string,
  scope?: string,
): Promise<TokenResponse> {
  const { status, body } = await tokenRequest(server, {
    grant_type: "client_credentials",
    client_id: clientId,
    client_secret: clientSecret,
    scope,
  });
  if (status !== 200) throw new Error(`client credentials failed: ${status} ${JSON.stringify(body)}`);
  return body as unknown as TokenResponse;
}

/** A minimal cookie jar honouring cookie paths and deletions (enough for the sign-in flow). */
export class CookieJar {
  private cookies = new Map<string, { name: string; value: string; path: string }>();

  store(url: string, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";").map((s) => s.trim());
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      let path = new URL(url).pathname.replace(/\/[^/]*$/, "") || "/";
      let expired = value === "";
      for (const attr of attrs) {
        const [k, v = ""] = attr.split("=");
        const key = k!.toLowerCase();
        if (key === "path") path = v;
        if (key === "expires" && new Date(v).getTime() < Date.now()) expired = true;
        if (key === "max-age" && Number(v) <= 0) expired = true;
      }
      const id = `${name}|${path}`;
      if (expired) this.cookies.delete(id);
      else this.cookies.set(id, { name, value, path });
    }
  }

  header(url: string): string {
    const path = new URL(url).pathname;
    return [...this.cookies.values()]
      .filter((c) => path === c.path || path.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join("; ");
  }

  /** A cookie's value by name (the most specific path first), or undefined. */
  get(name: string): string | undefined {
    return [...this.cookies.values()].sort((a, b) => b.path.length - a.path.length).find((c) => c.name === name)?.value;
  }

  names(): string[] {
    return [...this.cookies.values()].map((c) => c.name);
  }

  clear(): void {
    this.cookies.clear();
  }
}

/** One request with the jar's cookies; never follows redirects. */
export async function jarFetch(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = jar.header(url);
  if (cookie) headers.set("cookie", cookie);
  const res = await fetch(url, { ...init, headers, redirect: "manual" });
  jar.store(url, res.headers);
  return res;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** POSTs a hosted-page form as the browser would (same-origin Origin header). */
export async function postInteraction(
  server: ServerLike,
  jar: CookieJar,
  location: string,
  action: "login" | "second-factor" | "passkey" | "consent" | "abort",
  form: Record<string, string> = {},
): Promise<Response> {
  const url = new URL(location, server.url);
  const target = `${url.origin}${url.pathname}/${action}`;
  return jarFetch(jar, target, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: url.origin },
    body: new URLSearchParams(form),
  });
}

export interface AuthorizeOptions {
  handle: string;
  password: string;
  clientId: string;
  redirectUri: string;
  scope?: string;
  /** Reuse a jar to keep the platform session between flows. */
  jar?: CookieJar;
  /** Answer the consent page with Allow (default) or Deny. */
  consent?: "allow" | "deny";
  extraParams?: Record<string, string>;
  /** The code the second-factor step is answered with, asked when the step shows. */
  secondFactor?: () => Promise<string>;
}

export interface AuthorizeResult {
  code: string | null;
  state: string;
  verifier: string;
  /** The final redirect to the client, parsed. */
  callback: URL;
  jar: CookieJar;
  /** Whether the consent page was shown. */
  consentShown: boolean;
  /** Whether the login page was shown (false when the platform session was reused). */
  loginShown: boolean;
}

/**
 * Runs the browser part of the code flow: authorization request, login form, consent (if asked),
 * until the redirect back to the client. Throws if the flow stops anywhere else.
 */
export async function authorize(server: ServerLike, options: AuthorizeOptions): Promise<AuthorizeResult> {
  const jar = options.jar ?? new CookieJar();
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(12).toString("base64url");
  const auth = new URL(authorizationEndpoint(server));
  const params = {
    client_id: options.clientId,
    response_type: "code",
    redirect_uri: options.redirectUri,
    scope: options.scope ?? "openid",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...options.extraParams,
  };
  for (const [k, v] of Object.entries(params)) auth.searchParams.set(k, v);
  const result = await completeSignIn(server, auth.href, { ...options, jar });
  return { ...result, state, verifier };
}

/**
 * The browser part of a code flow started elsewhere (e.g. by an SDK or an example app building its
 * own authorization URL): follows `authorizationUrl` through login and consent (if asked) until the
 * redirect to `options.redirectUri`, and returns that callback. Throws if the flow stops elsewhere.
 */
export async function completeSignIn(
  server: ServerLike,
  authorizationUrl: string,
  options: Pick<AuthorizeOptions, "handle" | "password" | "redirectUri" | "jar" | "consent" | "secondFactor">,
): Promise<Omit<AuthorizeResult, "state" | "verifier">> {
  const jar = options.jar ?? new CookieJar();
  const auth = new URL(authorizationUrl);
  let res = await jarFetch(jar, auth.href);
  let consentShown = false;
  let loginShown = false;
  for (let step = 0; step < 10; step++) {
    if (res.status === 200) {
      // An auto-submitting form, as a browser would submit it: oidc-provider's way of ending the
      // session of the account signed in before when someone else signs in (resume.js → end_session).
      const html = await res.text();
      const submitted = autoSubmittedForm(html, auth);
      if (!submitted) throw new Error(`sign-in flow stopped with HTTP 200: ${html.slice(0, 300)}`);
      res = await jarFetch(jar, submitted.action, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: auth.origin },
        body: new URLSearchParams(submitted.fields).toString(),
      });
      continue;
    }
    const location = res.headers.get("location");
    if (res.status !== 302 && res.status !== 303) {
      throw new Error(`sign-in flow stopped with HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
    }
    if (!location) throw new Error("redirect without Location");
    const next = new URL(location, auth);
    if (next.href.startsWith(options.redirectUri.split("?")[0]!) && !next.pathname.startsWith("/interaction/")) {
      return { code: next.searchParams.get("code"), callback: next, jar, consentShown, loginShown };
    }
    const interaction = /^\/interaction\/([A-Za-z0-9_-]+)$/.exec(next.pathname);
    if (interaction) {
      // The page itself is rendered by Next; its form posts are what matter here. Which prompt is
      // pending is read from the interaction's row.
      const uid = interaction[1]!;
      const pending = await pendingPrompt(server, uid);
      if (pending === "login" && options.secondFactor && (await pendingReasons(server, uid)).join() === "mfa_step_up") {
        // A step-up (acr_values asked for a second factor): only the code is asked.
        res = await postInteraction(server, jar, next.href, "second-factor", { code: await options.secondFactor() });
        const back = res.headers.get("location") ?? "";
        const error = back.includes(`/interaction/${uid}`) ? new URL(back, server.url).searchParams.get("error") : null;
        if (error) throw new Error(`second factor refused: ${error}`);
      } else if (pending === "login") {
        loginShown = true;
        res = await postInteraction(server, jar, next.href, "login", { username: options.handle, password: options.password });
        let back = res.headers.get("location") ?? "";
        if (options.secondFactor && back.includes(`/interaction/${uid}`) && !new URL(back, server.url).searchParams.get("error")) {
          res = await postInteraction(server, jar, next.href, "second-factor", { code: await options.secondFactor() });
          back = res.headers.get("location") ?? "";
        }
        if (back.includes(`/interaction/${uid}`)) {
          const error = new URL(back, server.url).searchParams.get("error");
          if (error) throw new Error(`login refused: ${error}`);
          // Not a login prompt after all (no database to ask): it is the consent page.
          loginShown = false;
          consentShown = true;
          res = await postInteraction(server, jar, next.href, options.consent === "deny" ? "abort" : "consent");
        }
      } else {
        consentShown = true;
        res = await postInteraction(server, jar, next.href, options.consent === "deny" ? "abort" : "consent");
      }
      continue;
    }
    res = await jarFetch(jar, next.href);
  }
  throw new Error("too many redirects in the sign-in flow");
}

/** The one form of a page that submits itself on load (oidc-provider's form_post pages), or null. */
function autoSubmittedForm(html: string, base: URL): { action: string; fields: Record<string, string> } | null {
  if (!/document\.forms\[0\]\.submit\(\)/.test(html)) return null;
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) return null;
  const fields: Record<string, string> = {};
  for (const input of html.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields[input[1]!] = decodeEntities(input[2]!);
  return { action: new URL(decodeEntities(action), base).href, fields };
}

function decodeEntities(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Why an interaction's prompt is asked (oidc-provider's check reasons), from the database row. */
async function pendingReasons(server: ServerLike & Partial<Pick<TestServer, "databaseUrl">>, uid: string): Promise<string[]> {
  if (!server.databaseUrl) return [];
  const rows = await query<{ payload: { prompt?: { reasons?: string[] } } }>(
    server.databaseUrl,
    `SELECT payload FROM "OidcModel" WHERE kind = 'Interaction' AND id = $1`,
    [uid],
  );
  return rows[0]?.payload.prompt?.reasons ?? [];
}

/** Which prompt an interaction waits for, read from the database row (tests only). */
async function pendingPrompt(server: ServerLike & Partial<Pick<TestServer, "databaseUrl">>, uid: string): Promise<string> {
  if (!server.databaseUrl) return "login";
  const rows = await query<{ payload: { prompt?: { name?: string } } }>(
    server.databaseUrl,
    `SELECT payload FROM "OidcModel" WHERE kind = 'Interaction' AND id = $1`,
    [uid],
  );
  return rows[0]?.payload.prompt?.name ?? "login";
}

/** Exchanges a code at the token endpoint (public client, PKCE). */
export function exchangeCode(
  server: ServerLike,
  options: { clientId: string; code: string; redirectUri: string; verifier?: string },
  headers: Record<string, string> = {},
) {
  return tokenRequest(
    server,
    {
      grant_type: "authorization_code",
      client_id: options.clientId,
      code: options.code,
      redirect_uri: options.redirectUri,
      code_verifier: options.verifier,
    },
    headers,
  );
}

export function refreshTokens(server: ServerLike, clientId: string, refreshToken: string, headers: Record<string, string> = {}) {
  return tokenRequest(server, { grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken }, headers);
}

/** The whole login-client flow: authorize (login + consent) and code exchange; throws unless 200. */
export async function signInAndGetTokens(
  server: ServerLike & Partial<Pick<TestServer, "databaseUrl">>,
  options: Omit<AuthorizeOptions, "consent">,
): Promise<Required<Pick<TokenResponse, "access_token" | "refresh_token" | "id_token" | "scope" | "expires_in">> & { jar: CookieJar }> {
  const flow = await authorize(server, options);
  if (!flow.code) throw new Error(`no code in the callback: ${flow.callback.href}`);
  const { status, body } = await exchangeCode(server, {
    clientId: options.clientId,
    code: flow.code,
    redirectUri: options.redirectUri,
    verifier: flow.verifier,
  });
  if (status !== 200) throw new Error(`code exchange failed: ${status} ${JSON.stringify(body)}`);
  const tokens = body as unknown as Required<TokenResponse>;
  return {
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    id_token: tokens.id_token,
    scope: tokens.scope,
    expires_in: tokens.expires_in,
    jar: flow.jar,
  };
}

/**
 * RP-initiated logout as a browser does it: GET the end_session URL, then confirm on the platform's
 * page (POST its form with the CSRF cookie). Returns the final redirect (to the post-logout URI).
 */
export async function confirmLogout(server: ServerLike, jar: CookieJar, endSessionUrl: string): Promise<Response> {
  const start = await jarFetch(jar, endSessionUrl);
  if (start.status !== 303) throw new Error(`end_session answered ${start.status}`);
  const xsrf = /(?:^|; )_logout_xsrf=([^;]+)/.exec(jar.header(`${server.url}/interaction/logout`))?.[1];
  if (!xsrf) throw new Error("no logout confirmation cookie");
  return jarFetch(jar, `${server.issuer}/protocol/openid-connect/logout/confirm`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(server.url).origin },
    body: new URLSearchParams({ xsrf, logout: "yes" }),
  });
}

/* ---------------------------------------------------------------------------------------------
 * Device sign-in (RFC 8628): the device's requests and the person's side, by plain HTTP.
 * ------------------------------------------------------------------------------------------- */

export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

export function deviceAuthorizationEndpoint(server: ServerLike): string {
  return `${server.issuer}/protocol/openid-connect/auth/device`;
}

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** POSTs the device authorization request (public client: client_id in the body). */
export async function requestDeviceAuthorization(
  server: ServerLike,
  form: Record<string, string | undefined>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = new URLSearchParams(Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined));
  const res = await fetch(deviceAuthorizationEndpoint(server), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A device authorization for this client; throws unless 200. */
export async function startDeviceSignIn(server: ServerLike, clientId: string, scope = "openid"): Promise<DeviceAuthorization> {
  const { status, body } = await requestDeviceAuthorization(server, { client_id: clientId, scope });
  if (status !== 200) throw new Error(`device authorization failed: ${status} ${JSON.stringify(body)}`);
  return body as unknown as DeviceAuthorization;
}

/** One poll of the token endpoint with a device code. */
export function pollDeviceToken(server: ServerLike, clientId: string, deviceCode: string) {
  return tokenRequest(server, { grant_type: DEVICE_CODE_GRANT, client_id: clientId, device_code: deviceCode });
}

export interface DeviceSignInOptions {
  userCode: string;
  handle: string;
  password: string;
  /** Reuse a jar to keep the platform session between flows. */
  jar?: CookieJar;
  /** Open verification_uri_complete (code filled in) rather than verification_uri and type it. Default true. */
  prefilled?: boolean;
  /** The answer on the "is this your code?" page. Default continue. */
  confirm?: "continue" | "cancel";
  /** The answer on the consent page, if shown. Default allow. */
  consent?: "allow" | "deny";
}

export interface DeviceSignInResult {
  /** Where the person ended: the device page's step (success, cancelled, input…) and its URL. */
  step: string;
  page: URL;
  jar: CookieJar;
  loginShown: boolean;
  consentShown: boolean;
}

/**
 * The person's side of device sign-in, as a browser without JavaScript does it: the verification
 * page, the code form, the confirmation, then the usual login and consent pages, until the device
 * page's last step. Throws if the flow stops anywhere else.
 */
export async function completeDeviceSignIn(
  server: ServerLike & Partial<Pick<TestServer, "databaseUrl">>,
  options: DeviceSignInOptions,
): Promise<DeviceSignInResult> {
  const jar = options.jar ?? new CookieJar();
  const verification = new URL(`${server.issuer}/device`);
  if (options.prefilled !== false) verification.searchParams.set("user_code", options.userCode);
  let res = await jarFetch(jar, verification.href);
  let loginShown = false;
  let consentShown = false;
  const form = (fields: Record<string, string>) =>
    jarFetch(jar, `${server.issuer}/device`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(server.url).origin },
      body: new URLSearchParams(fields),
    });
  for (let step = 0; step < 16; step++) {
    const location = res.headers.get("location");
    if (res.status !== 302 && res.status !== 303) {
      throw new Error(`device sign-in stopped with HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
    }
    if (!location) throw new Error("redirect without Location");
    const next = new URL(location, server.url);
    if (next.pathname === "/interaction/device") {
      const pageStep = next.searchParams.get("step") ?? "input";
      const xsrf = jar.get("_device_xsrf") ?? "";
      if (pageStep === "input" && !next.searchParams.get("error")) {
        res = await form({ xsrf, user_code: options.userCode });
        continue;
      }
      if (pageStep === "confirm") {
        const fields: Record<string, string> = { xsrf, user_code: next.searchParams.get("user_code") ?? "", confirm: "yes" };
        if (options.confirm === "cancel") fields.abort = "yes";
        res = await form(fields);
        continue;
      }
      return { step: pageStep, page: next, jar, loginShown, consentShown };
    }
    const interaction = /^\/interaction\/([A-Za-z0-9_-]+)$/.exec(next.pathname);
    if (interaction) {
      const pending = await pendingPrompt(server, interaction[1]!);
      if (pending === "login") {
        loginShown = true;
        res = await postInteraction(server, jar, next.href, "login", { username: options.handle, password: options.password });
        const error = new URL(res.headers.get("location") ?? "/", server.url).searchParams.get("error");
        if (error) throw new Error(`login refused: ${error}`);
      } else {
        consentShown = true;
        res = await postInteraction(server, jar, next.href, options.consent === "deny" ? "abort" : "consent");
      }
      continue;
    }
    res = await jarFetch(jar, next.href);
  }
  throw new Error("too many redirects in device sign-in");
}
