import { z } from "zod";
import { parseTrustProxy, type TrustProxyRule } from "./http/client-ip";
import { DEFAULT_USER_QUOTA_PERCENT } from "./schemas/rate-limits";
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE } from "./schemas/webhooks";

/**
 * The only reader of process.env (STYLE: Tests and config). Parsed first by server.ts and the CLI;
 * a bad value stops start-up with one line naming the variable.
 */
const optionalUrl = z
  .string()
  .url()
  .refine((v) => /^https?:\/\//.test(v), "must be an http(s) URL")
  .transform((v) => v.replace(/\/+$/, ""));

const seconds = (fallback: number) => z.coerce.number().int().positive().max(10 * 365 * 24 * 3600).default(fallback);

const booleanFlag = z
  .enum(["1", "0", "true", "false", "yes", "no", "on", "off", ""])
  .transform((v) => ["1", "true", "yes", "on"].includes(v));

/** TRUST_PROXY: see parseTrustProxy (lib/http/client-ip.ts), which also applies it. */
const trustProxy = z.string().transform((value, ctx): TrustProxyRule => {
  const rule = parseTrustProxy(value);
  if (typeof rule === "string") {
    ctx.addIssue({ code: "custom", message: rule });
    return z.NEVER;
  }
  return rule;
});

const rawSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  APP_URL: optionalUrl.optional(),
  ISSUER: optionalUrl.optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /**
   * A connection straight to PostgreSQL for what needs a session of its own (the change
   * channel's LISTEN, migrations and their advisory lock) when DATABASE_URL points at a transaction
   * pooler such as PgBouncer. Defaults to DATABASE_URL.
   */
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /**
   * DATABASE_URL goes through PgBouncer in transaction mode, so `pg` sends no named
   * (server-side) prepared statements: a transaction pooler does not keep them from one transaction
   * to the next (PgBouncer 1.18). Defaults to on when DATABASE_DIRECT_URL names another URL.
   */
  DATABASE_PGBOUNCER: booleanFlag.optional(),
  /**
   * Read replicas (streaming standbys of DATABASE_URL's database), comma-separated. API
   * reads that tolerate seconds of lag go to a healthy one (lib/database/replicas.ts); unset: every
   * query goes to DATABASE_URL, as before.
   */
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((value) => value.split(",").map((url) => url.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, "must be comma-separated postgres:// or postgresql:// URLs")).max(16, "at most 16 replicas"))
    .optional(),
  /** A replica further behind the primary than this is skipped until it catches up. */
  REPLICA_MAX_LAG_SECONDS: z.coerce.number().min(0.5).max(3600).default(5),
  /** Where the embedded PostgreSQL keeps its data (only without DATABASE_URL). */
  DATA_DIR: z.string().min(1).default(".data"),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1024).max(65535).default(54329),
  ACCESS_TOKEN_TTL: seconds(3600),
  REFRESH_TOKEN_TTL: seconds(30 * 24 * 3600),
  /** How often each process checks the database for rotated signing keys (`keys rotate`). */
  SIGNING_KEY_POLL_SECONDS: seconds(60),
  SEED_DEMO: booleanFlag.optional(),
  /** Cookie signing keys (comma separated); generated and kept in the database when unset. */
  COOKIE_SECRETS: z.string().min(32).optional(),
  /** next-auth's secret; generated and kept in the database when unset. */
  NEXTAUTH_SECRET: z.string().min(32).optional(),
  /** Which proxies may report the client (X-Forwarded-*): see TrustProxyRule. */
  TRUST_PROXY: trustProxy.default({ mode: "none" }),
  /**
   * The prefix length by which IPv6 clients are throttled (login, user-code entry, the
   * password-check gate); an IPv4 client is throttled by its address. 64: one subscriber's network.
   */
  THROTTLE_IPV6_PREFIX: z.coerce.number().int().min(32).max(128).default(64),
  /**
   * Issue 24, the password-check gate (lib/services/password-checks.ts): how many sign-ins may wait
   * for a password check in this process, and for how long (ms); beyond either the login page
   * answers 503 with Retry-After.
   */
  PASSWORD_CHECK_QUEUE: z.coerce.number().int().min(1).max(10_000).default(64),
  PASSWORD_CHECK_MAX_WAIT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /**
   * Replace a password hash that is not Argon2id at today's parameters (older scrypt hashes, issue
   * 24) at the owner's next successful sign-in. On by default; the benchmark turns it off, because
   * it seeds deliberately cheap scrypt hashes so that signing thousands of users in is not spent
   * hashing.
   */
  PASSWORD_REHASH: booleanFlag.default(true),
  /**
   * V8's old-generation growth between major GCs, in percent over the live heap (peak
   * RSS). 0 leaves V8's own policy (up to 4x the live heap).
   */
  HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(1000).default(25),
  /**
   * Worker processes sharing the port (lib/server/cluster.ts): a number, or `auto` for
   * the cores available. 1 (the default) runs one process without a cluster primary.
   */
  WEB_CONCURRENCY: z
    .union([z.literal("auto"), z.coerce.number().int().min(1).max(64)], { message: "must be a number from 1 to 64, or auto" })
    .default(1),
  /** Connections in each process's PostgreSQL pool (workers get their share of max_connections). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(500).default(20),
  /**
   * Usage metering: `off` stops counting API requests and token grants in this process
   * (read once at start; the benchmark compares both). Usage pages then show nothing new.
   */
  METERING: booleanFlag.default(true),
  /** How often each process writes its usage counts and request log to the database, in ms. */
  USAGE_FLUSH_MS: z.coerce.number().int().min(50).max(600_000).default(5000),
  /** How often each process runs the usage rollup and retention job, in seconds. */
  USAGE_RETENTION_SECONDS: seconds(600),
  /**
   * The bearer token of `GET /metrics` (lib/metrics.ts, Prometheus text). Unset (the
   * default): the endpoint does not exist (404). At least 32 characters: it guards counters that
   * tell how traffic flows.
   */
  METRICS_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * A port of its own for `GET /metrics`, on METRICS_HOST; it asks for METRICS_TOKEN
   * when that is set, like the main port. Unset (the default): no such port.
   */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * The address METRICS_PORT listens on. Loopback by default, not HOST: without METRICS_TOKEN
   * that port answers anyone who reaches it, and HOST is 0.0.0.0 so that the product is reachable.
   * An operator who scrapes from another machine says so here (and sets METRICS_TOKEN).
   */
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /**
   * The share of an app's per-minute quota one user's tokens may use, in percent (a
   * login app's users share its quota; one of them cannot spend it all).
   */
  USER_QUOTA_PERCENT: z.coerce.number().min(1).max(100).default(DEFAULT_USER_QUOTA_PERCENT),
  /**
   * The key that encrypted sealed secrets (webhook signing secrets, TOTP secrets) before
   * SEALING_KEYS, 32 random bytes in base64url (`openssl rand -base64 32 | tr '+/' '-_' | tr -d =`).
   * Unset: one is generated and kept in the database. It opens the values sealed without a key id
   * (lib/events/secret-box.ts), and seals new ones while SEALING_KEYS is unset.
   */
  WEBHOOK_SECRETS_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, "must be 32 bytes in base64url (43 characters)")
    .optional(),
  /**
   * The sealing keyring (lib/events/secret-box.ts): `id:key` pairs, comma-separated, newest first.
   * The first seals; every one listed opens what it sealed, so a key is rotated by listing a new one
   * first, running `platform secrets reseal`, and then dropping the old one (README, Sealing key
   * rotation). Ids are 1 to 32 of [A-Za-z0-9_-]; keys are 32 bytes in base64url, as WEBHOOK_SECRETS_KEY.
   */
  SEALING_KEYS: z
    .string()
    .transform((value, ctx) => {
      const keys: { id: string; key: string }[] = [];
      for (const entry of value.split(",").map((s) => s.trim()).filter(Boolean)) {
        const match = /^([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]{43})$/.exec(entry);
        if (!match) {
          ctx.addIssue({ code: "custom", message: "must be id:key pairs, comma-separated (id: 1-32 of A-Za-z0-9_-, key: 32 bytes in base64url)" });
          return z.NEVER;
        }
        if (keys.some((k) => k.id === match[1])) {
          ctx.addIssue({ code: "custom", message: `names the key id ${match[1]} twice` });
          return z.NEVER;
        }
        keys.push({ id: match[1]!, key: match[2]! });
      }
      return keys;
    })
    .optional(),
  /**
   * Seconds between a failed webhook attempt and the next, one per retry (comma
   * separated; ±20 % jitter). The default retries for about 28 hours: 5 s, 5 min, 30 min, 2 h, 5 h,
   * 10 h, 10 h. Tests shorten it.
   */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?){0,19}$/, "must be comma-separated seconds")
    .transform((v) => v.split(",").map(Number))
    .default(DEFAULT_WEBHOOK_RETRY_SCHEDULE),
  /** Webhook attempts in flight at once in each process (lib/events/worker.ts); 0: none in this process. */
  EVENT_WORKER_CONCURRENCY: z.coerce.number().int().min(0).max(256).default(64),
  /**
   * The lease on a webhook attempt a process took, renewed while it holds it: a killed
   * process's attempts are taken by another once their leases pass (lib/events/worker.ts).
   */
  EVENT_WORKER_STALE_SECONDS: z.coerce.number().int().min(2).max(3600).default(30),
  /**
   * Event streams (`GET /api/v1/events`) open at once in each process, over all apps: each holds a
   * socket and up to a page of buffered events (lib/events/stream.ts). Beyond it, 429 with Retry-After.
   */
  EVENT_STREAMS_MAX: z.coerce.number().int().min(1).max(100_000).default(1000),
  /**
   * Development and tests only: webhook deliveries may go to loopback and private
   * addresses, over plain http too (lib/events/deliver-http.ts), so receivers on the same machine
   * work. Off by default (`0` or unset): in production that would let an app's webhook URL reach
   * the platform's own network.
   */
  WEBHOOKS_ALLOW_PRIVATE: booleanFlag.default(false),
  /**
   * The ports a webhook URL may name (lib/events/deliver-http.ts): 443 and 80 by default, so an app's
   * URL cannot knock on a mail, SSH or database port of a host the platform reaches. Comma-separated.
   * WEBHOOKS_ALLOW_PRIVATE lifts it (a receiver on the developer's own machine listens anywhere).
   */
  WEBHOOK_ALLOWED_PORTS: z
    .string()
    .regex(/^\d{1,5}(,\d{1,5})*$/, "must be comma-separated port numbers")
    .transform((v) => v.split(",").map(Number))
    .refine((ports) => ports.every((p) => p >= 1 && p <= 65535), "ports are 1 to 65535")
    .default([443, 80]),
  /**
   * Development and tests only: an agent's Client ID Metadata Document (issue 40, lib/oidc/agents.ts)
   * may be fetched from loopback and private addresses, and over plain http, as WEBHOOKS_ALLOW_PRIVATE
   * does for webhooks. Off by default.
   */
  CLIENT_METADATA_ALLOW_PRIVATE: booleanFlag.default(false),
  /**
   * RFC 9449 §8 and §9: every DPoP proof (token endpoint, API, /mcp, userinfo) must carry a nonce the
   * server issued (`use_dpop_nonce` and a `DPoP-Nonce` header otherwise), so a proof made in advance
   * is useless. Off by default: proofs are then accepted within five minutes of their `iat`.
   */
  DPOP_NONCE: booleanFlag.default(false),
  /**
   * RFC 7591 dynamic client registration for older MCP clients (issue 40): `off` (default), or
   * `agents`: a registration creates an agent client (public, PKCE, read scopes unless its domain is
   * trusted), rate-limited per address, and `registration_endpoint` appears in the metadata.
   */
  DYNAMIC_REGISTRATION: z.enum(["off", "agents"]).default("off"),
  /**
   * Browser origins besides APP_URL's that may call the MCP server at {APP_URL}/mcp (issue 41), comma
   * separated, e.g. `http://localhost:6274` for the MCP Inspector. A request with any other Origin is
   * refused (DNS-rebinding protection); one without an Origin (a native client) is not a browser's.
   */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .transform((v) => v.split(",").map((o) => o.trim()).filter(Boolean))
    .refine((origins) => origins.every((o) => URL.canParse(o) && new URL(o).origin === o), "must be comma-separated origins such as http://localhost:6274")
    .default([]),
  /**
   * Who must have a second factor (lib/services/mfa-policy.ts): `admins`, `developers`
   * (also owners and team admins of apps), `everyone` or `off`. Default `admins` wherever
   * DATABASE_URL is set, `off` on the embedded demo database (the start banner says so).
   */
  REQUIRE_MFA: z.enum(["admins", "developers", "everyone", "off"]).optional(),
});

export type Env = Omit<z.infer<typeof rawSchema>, "TRUST_PROXY" | "DATABASE_PGBOUNCER"> & {
  /** Whether DATABASE_URL is a transaction pooler: named prepared statements are off (lib/database/client.ts). */
  DATABASE_PGBOUNCER: boolean;
  APP_URL: string;
  ISSUER: string;
  API_URL: string;
  SEED_DEMO: boolean;
  /**
   * Whether any proxy is trusted: X-Forwarded-Proto/-Host then describe the public URL (Koa's
   * `app.proxy` in lib/oidc/provider.ts). Which address is the client is TRUST_PROXY_RULE's job.
   */
  TRUST_PROXY: boolean;
  TRUST_PROXY_RULE: TrustProxyRule;
};

export class EnvError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = rawSchema.safeParse(cleaned);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    throw new EnvError(`Invalid environment variable ${name}: ${issue.message}`);
  }
  const raw = result.data;
  if (raw.DATABASE_DIRECT_URL && !raw.DATABASE_URL) {
    throw new EnvError("Invalid environment variable DATABASE_DIRECT_URL: set only together with DATABASE_URL");
  }
  if (raw.DATABASE_REPLICA_URLS?.length && !raw.DATABASE_URL) {
    throw new EnvError("Invalid environment variable DATABASE_REPLICA_URLS: set only together with DATABASE_URL");
  }
  const DATABASE_DIRECT_URL = raw.DATABASE_DIRECT_URL ?? raw.DATABASE_URL;
  const APP_URL = raw.APP_URL ?? `http://localhost:${raw.PORT}`;
  const ISSUER = raw.ISSUER ?? `${APP_URL}/realms/platform`;
  return {
    ...raw,
    DATABASE_DIRECT_URL,
    DATABASE_PGBOUNCER: raw.DATABASE_PGBOUNCER ?? DATABASE_DIRECT_URL !== raw.DATABASE_URL,
    TRUST_PROXY: raw.TRUST_PROXY.mode !== "none",
    TRUST_PROXY_RULE: raw.TRUST_PROXY,
    APP_URL,
    ISSUER,
    API_URL: `${APP_URL}/api/v1`,
    SEED_DEMO: raw.SEED_DEMO ?? raw.DATABASE_URL === undefined,
    REQUIRE_MFA: raw.REQUIRE_MFA ?? (raw.DATABASE_URL === undefined ? "off" : "admins"),
  };
}

let cached: Env | undefined;

/** The validated environment; throws EnvError with one line naming the bad variable. */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Tests and the server set variables after import (embedded database URL); this re-reads them. */
export function resetEnv(): void {
  cached = undefined;
}

/** Sets `name` only where the operator left it unset or empty (the CLI quiets logs for --json). */
export function defaultEnv(name: string, value: string): void {
  if (process.env[name]) return;
  process.env[name] = value;
  resetEnv();
}
