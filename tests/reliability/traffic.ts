import { query } from "../helpers/db";
import { clientCredentialsToken, createTestApp, createTestUser, signInAndGetTokens, tokenEndpoint } from "../helpers/oidc";

/**
 * Mixed, steady client traffic for the fault and soak tests: client-credentials tokens, profile
 * reads, chat reads and posts, pokes and directory lookups, as real clients of the platform send
 * them. Open loop: requests start at a fixed rate whatever the server's latency (a slow server
 * must not slow the load down and hide its own slowness), with a cap on requests in flight.
 */
export type Kind = "token" | "profile" | "me" | "chat-read" | "chat-post" | "poke" | "directory" | "users";

export const ALL_KINDS: Kind[] = ["token", "profile", "me", "chat-read", "chat-post", "poke", "directory", "users"];

export interface Sample {
  kind: Kind;
  /** ms since the traffic started */
  start: number;
  end: number;
  /** 0 when no HTTP answer came (connection error or our own timeout). */
  status: number;
  contentType: string;
  body: string;
  error?: string;
  /** chat-post: the author; poke: caller and target. */
  user?: string;
  target?: string;
}

interface TrafficUser {
  handle: string;
  id: number;
  token: string;
  lastPostAt: number;
  nextTarget: number;
}

export interface TrafficSetup {
  baseUrl: string;
  issuer: string;
  api: { clientId: string; clientSecret: string };
  appToken: string;
  users: TrafficUser[];
  /** Handles that can be poked (and looked up). */
  targets: string[];
}

const PASSWORD = "traffic passphrase 1";
const REDIRECT = "http://localhost:9/callback";

/**
 * Apps, users and tokens for the traffic. `databaseUrl` is where fixtures are written (the real
 * database, even when the server reaches it through a proxy).
 */
export async function prepareTraffic(
  server: { url: string; issuer: string },
  databaseUrl: string,
  options: { users?: number; prefix?: string } = {},
): Promise<TrafficSetup> {
  const prefix = options.prefix ?? "load";
  const api = await createTestApp(databaseUrl, {
    type: "api",
    scopes: ["svc:chat.read", "svc:directory.read"],
    name: "Load API client",
  });
  const login = await createTestApp(databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read", "svc:chat.write", "svc:pokes.write", "svc:directory.read", "svc:stats.read"],
    redirectUris: [REDIRECT],
    name: "Load login client",
  });
  const users: TrafficUser[] = [];
  for (let i = 0; i < (options.users ?? 6); i++) {
    const handle = `${prefix}_user${i}`;
    const { id } = await createTestUser(databaseUrl, { handle, password: PASSWORD });
    const tokens = await signInAndGetTokens({ ...server, databaseUrl }, {
      handle,
      password: PASSWORD,
      clientId: login.clientId,
      redirectUri: REDIRECT,
    });
    users.push({ handle, id, token: tokens.access_token, lastPostAt: -Infinity, nextTarget: 0 });
  }
  const rows = await query<{ handle: string }>(
    databaseUrl,
    `SELECT handle FROM "User" WHERE NOT disabled AND "passwordHash" IS NULL AND handle <> 'platform' ORDER BY id LIMIT 400`,
  );
  const targets = rows.map((r) => r.handle);
  if (targets.length < 20) throw new Error("traffic needs the seeded demo world (poke targets)");
  const { access_token: appToken } = await clientCredentialsToken(server, api.clientId, api.clientSecret!);
  return {
    baseUrl: server.url,
    issuer: server.issuer,
    api: { clientId: api.clientId, clientSecret: api.clientSecret! },
    appToken,
    users,
    targets,
  };
}

export interface Traffic {
  samples: Sample[];
  /** ms since the traffic started */
  now(): number;
  inFlight(): number;
  /** Stops starting requests and waits for those in flight. */
  stop(): Promise<Sample[]>;
}

const CHAT_INTERVAL_MS = 2_200;

export function startTraffic(
  setup: TrafficSetup,
  options: { ratePerSecond: number; kinds?: Kind[]; timeoutMs?: number; maxInFlight?: number },
): Traffic {
  const kinds = options.kinds ?? ALL_KINDS;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxInFlight = options.maxInFlight ?? 200;
  const samples: Sample[] = [];
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const pending = new Set<Promise<void>>();
  let tick = 0;
  let userTurn = 0;

  const nextUser = () => setup.users[userTurn++ % setup.users.length]!;
  const api = (p: string) => `${setup.baseUrl}/api/v1${p}`;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const json = { "content-type": "application/json" };

  function build(kind: Kind): { kind: Kind; url: string; init: RequestInit; user?: string; target?: string } | null {
    switch (kind) {
      case "token":
        return {
          kind,
          url: tokenEndpoint({ url: setup.baseUrl, issuer: setup.issuer }),
          init: {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({
              grant_type: "client_credentials",
              client_id: setup.api.clientId,
              client_secret: setup.api.clientSecret,
            }),
          },
        };
      case "profile": {
        const user = nextUser();
        const target = setup.targets[tick % setup.targets.length]!;
        return { kind, url: api(`/users/${target}`), init: { headers: bearer(user.token) } };
      }
      case "me":
        return { kind, url: api("/me/stats"), init: { headers: bearer(nextUser().token) } };
      case "chat-read":
        return { kind, url: api("/global-chat/messages?limit=20"), init: { headers: bearer(setup.appToken) } };
      case "users":
        return { kind, url: api("/users?limit=25"), init: { headers: bearer(setup.appToken) } };
      case "directory": {
        const identifiers = [0, 1, 2].map((i) => ({ type: "handle", value: setup.targets[(tick + i) % setup.targets.length]! }));
        return {
          kind,
          url: api("/directory/resolve"),
          init: { method: "POST", headers: { ...bearer(setup.appToken), ...json }, body: JSON.stringify({ identifiers }) },
        };
      }
      case "chat-post": {
        const t = now();
        const user = setup.users.find((u) => t - u.lastPostAt >= CHAT_INTERVAL_MS);
        if (!user) return null;
        user.lastPostAt = t;
        return {
          kind,
          user: user.handle,
          url: api("/global-chat/messages"),
          init: {
            method: "POST",
            headers: { ...bearer(user.token), ...json },
            body: JSON.stringify({ text: `load ${user.handle} ${Math.round(t)}` }),
          },
        };
      }
      case "poke": {
        const user = nextUser();
        const target = setup.targets[user.nextTarget++ % setup.targets.length]!;
        return { kind, user: user.handle, target, url: api(`/users/${target}/poke`), init: { method: "POST", headers: bearer(user.token) } };
      }
    }
  }

  async function send(request: NonNullable<ReturnType<typeof build>>): Promise<void> {
    const start = now();
    const sample: Sample = { kind: request.kind, start, end: start, status: 0, contentType: "", body: "" };
    if (request.user) sample.user = request.user;
    if (request.target) sample.target = request.target;
    try {
      const res = await fetch(request.url, { ...request.init, signal: AbortSignal.timeout(timeoutMs) });
      sample.status = res.status;
      sample.contentType = res.headers.get("content-type") ?? "";
      sample.body = await res.text();
    } catch (error) {
      sample.error = (error as Error).name === "TimeoutError" ? "timeout" : String((error as Error).cause ?? error);
    }
    sample.end = now();
    samples.push(sample);
  }

  const interval = 1000 / options.ratePerSecond;
  let stopped = false;
  let nextAt = 0;
  const timer = setInterval(() => {
    // Catch up on ticks missed by a busy event loop, so the offered rate stays what was asked.
    while (!stopped && nextAt <= now()) {
      nextAt += interval;
      if (pending.size >= maxInFlight) continue;
      const kind = kinds[tick++ % kinds.length]!;
      const request = build(kind) ?? build(kind === "chat-read" ? "users" : "chat-read");
      if (!request) continue;
      const p = send(request).finally(() => pending.delete(p));
      pending.add(p);
    }
  }, Math.max(1, Math.min(20, interval / 2)));

  return {
    samples,
    now,
    inFlight: () => pending.size,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all([...pending]);
      return samples;
    },
  };
}

/** True when a body looks like it leaks internals (stack frames, driver or file names). */
export function leaksInternals(body: string): boolean {
  return /\n\s+at |node_modules|\.ts:\d+|ECONN|Connection terminated|PrismaClient|prisma|pg-pool|SELECT |INSERT /i.test(body);
}

/** Whether a sample is a correct error answer: API envelope on /api/v1, OAuth form on the token endpoint. */
export function errorShapeOk(sample: Sample): boolean {
  if (!sample.contentType.includes("application/json")) return false;
  let body: unknown;
  try {
    body = JSON.parse(sample.body);
  } catch {
    return false;
  }
  if (sample.kind === "token") {
    const b = body as { error?: unknown; error_description?: unknown };
    return typeof b.error === "string" && typeof b.error_description === "string";
  }
  const e = (body as { error?: { code?: unknown; message?: unknown } }).error;
  return typeof e?.code === "string" && typeof e.message === "string";
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
