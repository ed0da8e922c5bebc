import { randomUUID } from "node:crypto";
import { importJWK, SignJWT, type JWK } from "jose";
import { query } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Shared set-up for the API tests: one real server per test file (seeded demo world), fixtures
 * inserted with SQL, and tokens.
 *
 * TODO(issue 4): tokens are minted here with the server's own ES256 signing key from the
 * SigningKey table (the same claims oidc-provider issues: RFC 9068 at+jwt, iss, aud = API URL,
 * client_id, scope, sub = user id). Switch to tests/helpers/oidc.ts (real grants) once it lands.
 */
export interface Api {
  server: TestServer;
  url(path: string): string;
  sql<T extends Record<string, unknown> = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  call(path: string, init?: CallInit): Promise<ApiResult>;
  /** An approved app and a token for it (app-only when `user` is omitted). */
  token(options: TokenOptions): Promise<string>;
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
  scopes?: string[];
  /** Handle or id of the user the token acts for; omitted = app-only. */
  user?: string | number;
  clientId?: string;
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

  const owner = await createUser({ handle: uniqueHandle("owner") });
  const apps = new Map<string, string>();

  async function createUser(o: UserOptions = {}) {
    const handle = o.handle ?? uniqueHandle();
    const [row] = await sql<{ id: number }>(
      `INSERT INTO "User" (handle, "displayName", muted, disabled, "directoryVisible", "avatarUrl", "avatarUrlSmall", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7, timezone('UTC', now())) RETURNING id`,
      [handle, o.displayName ?? `Test ${handle}`, o.muted ?? false, o.disabled ?? false, o.directoryVisible ?? true,
        `https://img.example/${handle}.png`, `https://img.example/${handle}-s.png`],
    );
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

  async function token(o: TokenOptions) {
    const kind = o.user === undefined ? "api" : "login";
    let clientId = o.clientId;
    if (!clientId) {
      clientId = apps.get(kind) ?? (await createApp({ type: kind })).clientId;
      apps.set(kind, clientId);
    }
    const sub = o.user === undefined ? undefined : String(typeof o.user === "number" ? o.user : await userId(o.user));
    const { kid, key: k } = await key();
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ client_id: clientId, scope: (o.scopes ?? ALL_SCOPES).join(" ") })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid })
      .setIssuer(server.issuer)
      .setAudience(server.apiUrl)
      .setIssuedAt(now)
      .setExpirationTime(now + (o.expiresIn ?? 600))
      .setJti(randomUUID());
    if (sub) jwt.setSubject(sub);
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
    createUser,
    createApp,
    userId,
    stop: async () => {
      await server.stop();
    },
  };
}

/** Every error body must be exactly the envelope with a SPEC code. */
export const SPEC_ERROR_CODES = new Set([
  "invalid_request",
  "invalid_reply",
  "unauthorized",
  "invalid_token",
  "insufficient_scope",
  "requires_user",
  "forbidden",
  "not_found",
  "user_not_found",
  "method_not_allowed",
  "rate_limited",
  "poke_cooldown",
  "internal_error",
]);
