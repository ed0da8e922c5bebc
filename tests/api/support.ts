import { randomUUID } from "node:crypto";
import { importJWK, SignJWT, type JWK } from "jose";
import { hashPassword } from "../../lib/crypto/passwords";
import { DEMO_ACCOUNTS } from "../../lib/seed/demo-accounts";
import { query } from "../helpers/db";
import { clientCredentialsToken, createTestApp, signInAndGetTokens } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Shared set-up for the API tests: one real server per test file (seeded demo world), fixtures
 * inserted with SQL, and real tokens from the sign-in service (tests/helpers/oidc.ts): client
 * credentials for app-only tokens, the authorization code flow with PKCE (hosted login + consent)
 * for user-delegated ones.
 *
 * `mintToken` signs a token with the server's own signing key instead; it exists only for tokens
 * the sign-in service will not issue on demand (already expired, for an unregistered client, or as
 * the basis of a tampered one).
 */
export interface Api {
  server: TestServer;
  url(path: string): string;
  sql<T extends Record<string, unknown> = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  call(path: string, init?: CallInit): Promise<ApiResult>;
  /** A real token: app-only (client credentials) when `user` is omitted, else user-delegated (code flow). */
  token(options: TokenOptions): Promise<string>;
  /** A token signed with the server's key but not issued by the sign-in service (edge cases only). */
  mintToken(options: MintOptions): Promise<string>;
  createUser(options?: UserOptions): Promise<{ id: number; handle: string }>;
  createApp(options?: AppOptions): Promise<{ clientId: string }>;
  userId(handle: string): Promise<number>;
  stop(): Promise<void>;
}

export interface CallInit {
  method?: string;
  token?: string;
  /** JSON-encoded unless a string or Uint8Array is given. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiResult {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke at arbitrary JSON
  body: any;
  text: string;
}

export interface TokenOptions {
  /** svc: scopes registered for the app (default: all the app type may hold). */
  scopes?: string[];
  /** Handle of the user the token acts for (a demo account or one made by createUser); omitted = app-only. */
  user?: string;
  /** Use a fresh app rather than the cached one for this scope set (e.g. to suspend it afterwards). */
  freshApp?: boolean;
  /** Receives the client id of the app the token was issued to. */
  onApp?: (clientId: string) => void;
}

export interface MintOptions {
  scopes?: string[];
  /** User id; omitted = app-only. */
  userId?: number;
  clientId: string;
  expiresIn?: number;
}

export interface UserOptions {
  handle?: string;
  displayName?: string;
  muted?: boolean;
  disabled?: boolean;
  directoryVisible?: boolean;
}

export interface AppOptions {
  type?: "api" | "login";
  status?: "pending" | "approved" | "rejected" | "suspended";
  scopes?: string[];
}

/** The scopes an API client may hold (the rest need a user). */
export const APP_SCOPES = ["svc:chat.read", "svc:directory.read"];

/** Password of every user made by createUser (hashed once per file). */
export const TEST_PASSWORD = "api-test-password-1";
const REDIRECT_URI = "http://localhost:9/callback";

export const ALL_SCOPES = [
  "svc:stats.read",
  "svc:notifications.read",
  "svc:beetle.read",
  "svc:pokes.write",
  "svc:chat.read",
  "svc:chat.write",
  "svc:directory.read",
];

let counter = 0;
export function uniqueHandle(prefix = "t"): string {
  return `${prefix}_${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}${(counter++).toString(36)}`;
}

export async function startApi(options: { env?: Record<string, string> } = {}): Promise<Api> {
  const server = await startServer({ seed: true, env: options.env });
  const sql = <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => query<T>(server.databaseUrl, text, params);

  const passwords = new Map<string, string>(DEMO_ACCOUNTS.map((a) => [a.handle, a.password]));
  let passwordHash: Promise<string> | undefined;

  async function createUser(o: UserOptions = {}) {
    const handle = o.handle ?? uniqueHandle();
    passwordHash ??= hashPassword(TEST_PASSWORD);
    const [row] = await sql<{ id: number }>(
      `INSERT INTO "User" (handle, "displayName", "passwordHash", muted, disabled, "directoryVisible", "avatarUrl", "avatarUrlSmall", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, timezone('UTC', now())) RETURNING id`,
      [handle, o.displayName ?? `Test ${handle}`, await passwordHash, o.muted ?? false, o.disabled ?? false, o.directoryVisible ?? true,
        `https://img.example/${handle}.png`, `https://img.example/${handle}-s.png`],
    );
    passwords.set(handle, TEST_PASSWORD);
    return { id: row!.id, handle };
  }

  async function createApp(o: AppOptions = {}) {
    const clientId = `test-${randomUUID()}`;
    await sql(
      `INSERT INTO "Application" ("clientId", name, type, status, "ownerId", scopes, "redirectUris", "postLogoutRedirectUris", "updatedAt")
       VALUES ($1, $2, $3::"AppType", $4::"AppStatus", $5, $6, '{}', '{}', timezone('UTC', now()))`,
      [clientId, `App ${clientId.slice(5, 13)}`, o.type ?? "api", o.status ?? "approved", owner.id, o.scopes ?? ALL_SCOPES],
    );
    return { clientId };
  }

  async function userId(handle: string) {
    const [row] = await sql<{ id: number }>(`SELECT id FROM "User" WHERE handle = $1`, [handle]);
    if (!row) throw new Error(`no user ${handle}`);
    return row.id;
  }

  const owner = await createUser({ handle: uniqueHandle("owner") });

  // Apps are reused per scope set; user tokens per (user, scope set): a sign-in costs a few requests.
  const appCache = new Map<string, Promise<{ clientId: string; clientSecret?: string }>>();
  const tokenCache = new Map<string, Promise<string>>();

  function appFor(type: "api" | "login", scopes: string[], fresh: boolean) {
    const key = `${type}:${[...scopes].sort().join(" ")}`;
    const make = () =>
      createTestApp(server.databaseUrl, { type, scopes, redirectUris: type === "login" ? [REDIRECT_URI] : [], ownerHandle: owner.handle });
    if (fresh) return make();
    if (!appCache.has(key)) appCache.set(key, make());
    return appCache.get(key)!;
  }

  async function issue(o: TokenOptions): Promise<string> {
    if (o.user === undefined) {
      const app = await appFor("api", o.scopes ?? APP_SCOPES, o.freshApp ?? false);
      o.onApp?.(app.clientId);
      return (await clientCredentialsToken(server, app.clientId, app.clientSecret!)).access_token;
    }
    const password = passwords.get(o.user);
    if (!password) throw new Error(`no known password for ${o.user}`);
    const app = await appFor("login", (o.scopes ?? ALL_SCOPES).filter((s) => s.startsWith("svc:")), o.freshApp ?? false);
    o.onApp?.(app.clientId);
    const tokens = await signInAndGetTokens(server, { handle: o.user, password, clientId: app.clientId, redirectUri: REDIRECT_URI });
    return tokens.access_token;
  }

  function token(o: TokenOptions): Promise<string> {
    if (o.freshApp || o.onApp) return issue(o);
    const key = `${o.user ?? ""}|${[...(o.scopes ?? ["default"])].sort().join(" ")}`;
    if (!tokenCache.has(key)) {
      const p = issue(o);
      p.catch(() => tokenCache.delete(key));
      tokenCache.set(key, p);
    }
    return tokenCache.get(key)!;
  }

  let signingKey: { kid: string; key: CryptoKey | Uint8Array } | undefined;
  async function key() {
    if (signingKey) return signingKey;
    const [row] = await sql<{ kid: string; privateJwk: JWK }>(
      `SELECT kid, "privateJwk" FROM "SigningKey" WHERE alg = 'ES256' AND "retiredAt" IS NULL ORDER BY "createdAt" DESC LIMIT 1`,
    );
    if (!row) throw new Error("the server has no ES256 signing key");
    signingKey = { kid: row.kid, key: await importJWK(row.privateJwk, "ES256") };
    return signingKey;
  }

  async function mintToken(o: MintOptions) {
    const { kid, key: k } = await key();
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ client_id: o.clientId, scope: (o.scopes ?? ALL_SCOPES).join(" ") })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid })
      .setIssuer(server.issuer)
      .setAudience(server.apiUrl)
      .setIssuedAt(now)
      .setExpirationTime(now + (o.expiresIn ?? 600))
      .setJti(randomUUID());
    if (o.userId !== undefined) jwt.setSubject(String(o.userId));
    return jwt.sign(k);
  }

  async function call(path: string, init: CallInit = {}): Promise<ApiResult> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let body: BodyInit | undefined;
    if (init.body !== undefined) {
      if (typeof init.body === "string" || init.body instanceof Uint8Array) body = init.body as BodyInit;
      else body = JSON.stringify(init.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
    }
    const res = await fetch(`${server.apiUrl}${path}`, { method: init.method ?? (body !== undefined ? "POST" : "GET"), headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  return {
    server,
    url: (path) => `${server.apiUrl}${path}`,
    sql,
    call,
    token,
    mintToken,
    createUser,
    createApp,
    userId,
    stop: async () => {
      await server.stop();
    },
  };
}

/**
 * SPEC.md "Errors", copied here by hand (never imported from lib/errors.ts or the schemas, so a
 * change to the implementation's table cannot silently change what the tests accept): each API
 * error code with the HTTP statuses the table gives it. 413 keeps `invalid_request`.
 */
export const SPEC_ERROR_STATUS: Readonly<Record<string, readonly number[]>> = {
  invalid_request: [400, 413],
  invalid_reply: [400],
  unauthorized: [401],
  invalid_token: [401],
  insufficient_scope: [403],
  requires_user: [403],
  forbidden: [403],
  not_found: [404],
  user_not_found: [404],
  method_not_allowed: [405],
  // Idempotency-Key on the chat post and the poke (additions to SPEC.md's table).
  idempotency_key_in_use: [409],
  idempotency_key_reused: [422],
  rate_limited: [429],
  poke_cooldown: [429],
  internal_error: [500],
};

/** Every error body must be exactly the envelope with a SPEC code. */
export const SPEC_ERROR_CODES: ReadonlySet<string> = new Set(Object.keys(SPEC_ERROR_STATUS));
