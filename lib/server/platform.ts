import { createHash, timingSafeEqual } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { DEMO_ACCOUNTS as demoAccounts } from "../seed/demo-accounts";
import type { Env } from "../env";
import { CLIENT_IP_HEADER, clientIp, isTrustedPeer } from "../http/client-ip";
import { setSecurityHeadersHttps } from "../http/security-headers";
import { sendInternalError, sendJson, sendRaw } from "../http/reply";
import { logger } from "../logger";
import {
  changeChannelState,
  countHostedPageRequest,
  httpRoute,
  METRICS_CONTENT_TYPE,
  renderMetrics,
  watchDatabasePool,
  type HttpRoute,
} from "../metrics";
import type { InteractionAction } from "../oidc/interactions";
import type { HostedPageFastPath } from "./hosted-page";

export interface Platform {
  handle(req: IncomingMessage, res: ServerResponse): void;
  banner(port: number): string;
  /** Ends every event stream: shutdown does not wait for long-lived responses. */
  closeStreams(): void;
  stop(): Promise<void>;
}

const INTERACTION_POST = /^\/interaction\/([A-Za-z0-9_-]{1,64})\/(login|second-factor|passkey-options|passkey|consent|abort|switch)$/;
/** The hosted login and consent page (pages/interaction/[uid].tsx), or one of the static pages beside it. */
const INTERACTION_PAGE = /^\/interaction\/([A-Za-z0-9_-]{1,64})$/;

/**
 * With a list of trusted proxies, a request from any other peer may not describe the public URL:
 * its X-Forwarded-Proto and -Host are dropped before oidc-provider (Koa's all-or-nothing
 * `app.proxy`) or Next read them. Its X-Forwarded-For is harmless (lib/http/client-ip.ts stops at
 * the untrusted peer).
 */
function forgetUntrustedForwarding(req: IncomingMessage, config: Env): void {
  if (config.TRUST_PROXY_RULE.mode !== "list" || isTrustedPeer(req, config.TRUST_PROXY_RULE)) return;
  delete req.headers["x-forwarded-proto"];
  delete req.headers["x-forwarded-host"];
}

/**
 * Next's headers() has no socket address, so the portal (lib/portal/session.ts, the audit log) reads the
 * client address from CLIENT_IP_HEADER, set here by the one rule. Whatever the client sent under
 * that name is replaced, in the parsed headers and in rawHeaders alike.
 */
function setClientIpHeader(req: IncomingMessage, config: Env): void {
  if (CLIENT_IP_HEADER in req.headers) {
    const raw = req.rawHeaders;
    const kept: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (raw[i]!.toLowerCase() !== CLIENT_IP_HEADER) kept.push(raw[i]!, raw[i + 1]!);
    }
    raw.splice(0, raw.length, ...kept);
  }
  req.headers[CLIENT_IP_HEADER] = clientIp(req, config.TRUST_PROXY_RULE);
}

/**
 * `GET /metrics`: this process's metrics in Prometheus text (lib/metrics.ts).
 * On the main port, for a scraper holding METRICS_TOKEN as its bearer token (without the variable
 * the path does not exist there); on METRICS_PORT too when METRICS_TOKEN is set, so that no port
 * answers without it (without the variable, METRICS_PORT listens on loopback unless METRICS_HOST
 * says otherwise: README, Metrics). The token is compared as SHA-256 digests with timingSafeEqual:
 * equal lengths, and no timing that tells how much of a guess was right.
 */
function serveMetrics(req: IncomingMessage, res: ServerResponse, token: string | null): void {
  if (token !== null) {
    const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const digest = (value: string) => createHash("sha256").update(value).digest();
    if (!timingSafeEqual(digest(presented), digest(token))) {
      sendJson(res, 401, { error: { code: "unauthorized", message: "GET /metrics needs the METRICS_TOKEN as a bearer token." } }, {
        "www-authenticate": 'Bearer realm="metrics"',
      });
      return;
    }
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    sendJson(res, 405, { error: { code: "method_not_allowed", message: "GET /metrics only." } }, { allow: "GET, HEAD" });
    return;
  }
  renderMetrics().then(
    (body) => sendRaw(res, 200, { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" }, req.method === "HEAD" ? null : body),
    (error: Error) => {
      logger.error("rendering metrics failed", { error: error.message });
      sendInternalError(res);
    },
  );
}

/** How long /readyz waits for the database's answer. */
const READY_DATABASE_TIMEOUT_MS = 2_000;

/**
 * `GET /readyz`: whether this process can serve. The database answers a `SELECT 1`
 * within READY_DATABASE_TIMEOUT_MS, and the change channel is connected and listening (without it
 * control actions taken elsewhere would reach this process only when its caches expire). 200 with
 * `{ status: "ready" }`, or 503 naming what is down. A deaf channel (connected, but its own probe went
 * unheard) reads `"change_channel": "deaf"` with 200. `/healthz` stays the liveness probe: it answers
 * as long as the process does.
 */
async function serveReadiness(req: IncomingMessage, res: ServerResponse, ping: () => Promise<unknown>): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    sendJson(res, 405, { error: { code: "method_not_allowed", message: "GET /readyz only." } }, { allow: "GET, HEAD" });
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const database = await Promise.race([
    ping().then(
      () => "up" as const,
      () => "down" as const,
    ),
    new Promise<"down">((resolve) => (timer = setTimeout(() => resolve("down"), READY_DATABASE_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  // A deaf channel (LISTEN through a transaction pooler) is reported, not refused: the process falls
  // back to short cache lifetimes by design, and every instance behind that pooler would be deaf alike.
  const changes = changeChannelState();
  const down = [database === "down" ? "database" : null, changes === "down" ? "change_channel" : null].filter((name) => name !== null);
  sendJson(res, down.length ? 503 : 200, { status: down.length ? "unavailable" : "ready", checks: { database, change_channel: changes }, down }, { "cache-control": "no-store" });
}

/**
 * The route templates HTTP metrics are labelled with (lib/metrics.ts): a fixed set, the API's route
 * table and the sign-in service's routes; never a raw path.
 */
function httpRoutes(issuerPath: string, oidcRoutes: Record<string, string>) {
  const oidc = new Map<string, HttpRoute>();
  for (const path of [...Object.values(oidcRoutes), "/.well-known/openid-configuration"]) oidc.set(path, httpRoute(`${issuerPath}${path}`));
  // The actions INTERACTION_POST matches: a fixed set.
  const interactionActions = new Map<string, HttpRoute>();
  const api = new Map<string, HttpRoute>();
  return {
    oidc: (subpath: string) => oidc.get(subpath) ?? httpRoute(`${issuerPath}/*`),
    interaction(action: string): HttpRoute {
      let route = interactionActions.get(action);
      if (!route) interactionActions.set(action, (route = httpRoute(`POST /interaction/{uid}/${action}`)));
      return route;
    },
    interactionPage: httpRoute("GET /interaction/{uid}"),
    /** `name`: the API route table's name of the route (`GET /users/{username}`), undefined when none matched. */
    api(name: string | undefined): HttpRoute {
      if (name === undefined) return httpRoute("/api/v1 (no route)");
      let route = api.get(name);
      if (!route) {
        const space = name.indexOf(" ");
        api.set(name, (route = httpRoute(`${name.slice(0, space)} /api/v1${name.slice(space + 1)}`)));
      }
      return route;
    },
    sdk: httpRoute("/sdk/{file}"),
    mcp: httpRoute("/mcp"),
    mcpServerJson: httpRoute("/.well-known/mcp/server.json"),
    protectedResource: httpRoute("/.well-known/oauth-protected-resource/{resource}"),
    authorizationServer: httpRoute(`/.well-known/oauth-authorization-server${issuerPath}`),
    healthz: httpRoute("/healthz"),
    readyz: httpRoute("/readyz"),
    metrics: httpRoute("/metrics"),
    nextStatic: httpRoute("/_next/*"),
    next: httpRoute("next (pages)"),
    notFound: httpRoute("(not found)"),
    failed: httpRoute("(unhandled error)"),
  };
}

/**
 * METRICS_PORT: a small server of its own for the scraper, `GET /metrics` (and nothing
 * else) on METRICS_HOST, behind METRICS_TOKEN when it is set. With WEB_CONCURRENCY > 1 the workers
 * share the port (node:cluster).
 */
function startMetricsServer(port: number, host: string, token: string | null): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if ((req.url ?? "/").split("?")[0] === "/metrics") serveMetrics(req, res, token);
    else sendJson(res, 404, { error: { code: "not_found", message: "Not found: this port serves GET /metrics only." } });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

/**
 * Wires the sign-in service, the API and Next into one request handler. Each part is loaded here,
 * after the database URL is known, so that their modules read the final environment.
 */
export async function startPlatform(options: {
  config: Env;
  dev: boolean;
  withNext: boolean;
  log: (line: string) => void;
}): Promise<Platform> {
  const { config, dev, withNext, log } = options;
  const issuerPath = new URL(config.ISSUER).pathname.replace(/\/+$/, "");

  const { ensureSettings } = await import("../services/settings");
  await ensureSettings();

  // The change channel: control actions taken anywhere (another process, the CLI) reach this
  // process's caches at once (lib/database/changes.ts). Start-up does not wait long for it: until
  // it listens, the caches' TTLs bound what it misses, and it drops them all once it does.
  const { startChangeListener } = await import("../database/changes");
  const changes = startChangeListener();
  await Promise.race([changes.ready, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);

  // Read replicas (DATABASE_REPLICA_URLS), checked every second; nothing without them.
  const { startReplicas } = await import("../database/replicas");
  const replicas = startReplicas();

  if (config.SEED_DEMO) {
    const { seedDemoWorld } = await import("../seed");
    await seedDemoWorld({ log });
  }

  // The portal signs developers in as a first-party login client of the sign-in service; its
  // redirect URIs follow APP_URL, so it is (re)ensured on every start, before Next serves a page.
  const { ensurePortalClient } = await import("../services/apps");
  await ensurePortalClient({
    redirectUri: `${config.APP_URL}/api/auth/callback/platform`,
    postLogoutRedirectUri: `${config.APP_URL}/`,
  });

  // Usage metering flushes every USAGE_FLUSH_MS (and at stop); the rollup and
  // retention job runs in every process (it is idempotent), every USAGE_RETENTION_SECONDS.
  const { usageMeter } = await import("../services/usage-meter");
  const { startUsageRetention } = await import("../services/usage");
  const meter = usageMeter();
  meter.start(config.USAGE_FLUSH_MS);
  const stopRetention = meter.enabled ? startUsageRetention(config.USAGE_RETENTION_SECONDS * 1000) : () => {};

  // This process takes its share of webhook fan-out and delivery (lib/events/worker.ts).
  const { startEventWorker } = await import("../events/worker");
  const { renderEvent } = await import("../api/serialize/events");
  const events = startEventWorker(renderEvent);
  const { startEventStreams } = await import("../events/stream");
  const streams = startEventStreams(renderEvent);

  const { createOidc } = await import("../oidc");
  const oidc = await createOidc();

  // The API's Node fast path: the same route table as handleApiRequest, without undici objects.
  const { serveApiRequest } = await import("../api/node");
  // The API as an MCP server (issue 41): the same route table, as tools.
  const { serveMcpRequest, serveServerJson, SERVER_JSON_PATH } = await import("../api/mcp/http");

  let nextHandler: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  let closeNext: (() => Promise<void>) | undefined;
  let hostedPage: HostedPageFastPath | undefined;
  if (withNext) {
    if (!dev) {
      const { ensureNextBuild, applyBuiltNextConfig, distDir } = await import("./build");
      await ensureNextBuild(process.cwd(), log, { once: true });
      // The config `next build` resolved, not next.config.ts (which would load SWC to transpile it).
      applyBuiltNextConfig(process.cwd());
      // The login and consent page's GET, rendered here from the same components. Not in
      // development, where Next's page (with its dev runtime) stays the one being edited.
      const { createHostedPageFastPath } = await import("./hosted-page");
      hostedPage = createHostedPageFastPath({ distDir: distDir(process.cwd()), https: config.APP_URL.startsWith("https:") });
    }
    const { default: next } = await import("next");
    // Next follows a server action's same-origin redirect itself (it fetches the target from its
    // own hostname:port, default 127.0.0.1:3000): a redirect into the sign-in service must therefore
    // never come from a server action (the portal's sign-out is a route handler, app/signout).
    const app = next({ dev, dir: process.cwd(), quiet: !dev });
    await app.prepare();
    const handler = app.getRequestHandler();
    nextHandler = (req, res) => handler(req, res);
    closeNext = () => app.close();
  }

  const apiOrigin = new URL(config.APP_URL).origin;

  // {APP_URL}/sdk/latest.tgz. A production start packs it now, in the background; otherwise
  // the first download does (lib/server/sdk-package.ts).
  const { sdkTarballServer, SDK_TARBALL_PATH } = await import("./sdk-package");
  const sdkTarball = sdkTarballServer(process.cwd(), log);
  if (withNext && !dev) sdkTarball.prepare().catch((error: Error) => logger.warn("packing the SDK failed", { error: error.message }));

  // Everything answered here (not by Next, whose proxy.ts adds its own) carries the security
  // headers: lib/http/reply.ts writes them with each reply, oidc-provider's answers get them in
  // lib/oidc before its Koa app runs.
  setSecurityHeadersHttps(config.APP_URL.startsWith("https:"));

  const { ROUTES: oidcRoutes } = await import("../oidc/config");
  const { asIssuerDiscovery, serveResourceMetadata, wellKnownOf } = await import("../oidc/protected-resources");
  const routes = httpRoutes(issuerPath, oidcRoutes);
  const { pool, getPool } = await import("../database/client");
  const pingDatabase = () => pool.query("SELECT 1");
  watchDatabasePool("primary", getPool(), config.DATABASE_POOL_SIZE);
  const metricsServer = config.METRICS_PORT ? await startMetricsServer(config.METRICS_PORT, config.METRICS_HOST, config.METRICS_TOKEN ?? null) : undefined;

  /** Answers one request; resolves with its route template for the HTTP metrics. */
  async function route(req: IncomingMessage, res: ServerResponse): Promise<HttpRoute> {
    forgetUntrustedForwarding(req, config);
    const url = req.url ?? "/";
    const path = url.split("?")[0]!;
    const wellKnown = path.startsWith("/.well-known/") ? wellKnownOf(path, issuerPath) : null;
    if (wellKnown?.kind === "protected-resource") {
      serveResourceMetadata(req, res, wellKnown.resource);
      return routes.protectedResource;
    }
    if (wellKnown?.kind === "authorization-server") {
      asIssuerDiscovery(req, issuerPath);
      await oidc.handle(req, res, issuerPath);
      return routes.authorizationServer;
    }
    const isIssuer = path === issuerPath || path.startsWith(`${issuerPath}/`);
    const isApi = path === "/api/v1" || path.startsWith("/api/v1/");
    if (isIssuer) {
      await oidc.handle(req, res, issuerPath);
      return routes.oidc(path.slice(issuerPath.length));
    }
    const interaction = req.method === "POST" ? INTERACTION_POST.exec(path) : null;
    if (interaction) {
      await oidc.handleInteraction(req, res, interaction[1]!, interaction[2] as InteractionAction);
      return routes.interaction(interaction[2]!);
    }
    if (isApi) return routes.api(await serveApiRequest(req, res, apiOrigin));
    if (path === "/mcp") {
      await serveMcpRequest(req, res, apiOrigin);
      return routes.mcp;
    }
    if (path === SERVER_JSON_PATH) {
      serveServerJson(req, res);
      return routes.mcpServerJson;
    }
    const sdkTarballName = path.startsWith("/sdk/") ? SDK_TARBALL_PATH.exec(path) : null;
    if (sdkTarballName) {
      await sdkTarball.serve(req, res, sdkTarballName[1]!);
      return routes.sdk;
    }
    if (path === "/healthz") {
      sendJson(res, 200, { status: "ok" });
      return routes.healthz;
    }
    if (path === "/readyz") {
      await serveReadiness(req, res, pingDatabase);
      return routes.readyz;
    }
    if (path === "/metrics" && config.METRICS_TOKEN) {
      serveMetrics(req, res, config.METRICS_TOKEN);
      return routes.metrics;
    }
    const page = hostedPage && req.method === "GET" ? INTERACTION_PAGE.exec(path) : null;
    if (page && hostedPage!.isInteractionPage(page[1]!)) {
      if (await hostedPage!.serve(req, res, page[1]!, url.slice(path.length + 1))) {
        countHostedPageRequest("fast");
        return routes.interactionPage;
      }
      countHostedPageRequest("next");
    }
    if (nextHandler) {
      setClientIpHeader(req, config);
      await nextHandler(req, res);
      return page ? routes.interactionPage : path.startsWith("/_next/") ? routes.nextStatic : routes.next;
    }
    sendJson(res, 404, { error: { code: "not_found", message: "Not found." } });
    return routes.notFound;
  }

  return {
    handle(req, res) {
      const started = performance.now();
      route(req, res).then(
        (template) => {
          // Counted when the response ends (a streamed one, an event stream, ends later).
          if (res.writableFinished) template.observe(res.statusCode, (performance.now() - started) / 1000);
          else res.once("close", () => template.observe(res.statusCode, (performance.now() - started) / 1000));
        },
        (error: unknown) => {
          logger.error("unhandled request error", { path: req.url?.split("?")[0], error: (error as Error)?.message });
          sendInternalError(res);
          routes.failed.observe(500, (performance.now() - started) / 1000);
        },
      );
    },
    banner(port) {
      const base = config.APP_URL;
      const lines = [
        "",
        `Developer platform is running${dev ? " (development)" : ""} on port ${port}`,
        `  Portal:      ${base}/`,
        `  Docs:        ${base}/docs`,
        `  API:         ${config.API_URL}`,
        `  OpenAPI:     ${config.API_URL}/openapi.json`,
        `  Issuer:      ${config.ISSUER}`,
        `  Discovery:   ${config.ISSUER}/.well-known/openid-configuration`,
        `  Runtime:     Node.js ${process.version}`,
      ];
      if (config.SEED_DEMO) {
        lines.push("", "Demo accounts (username / password):");
        for (const a of demoAccounts) lines.push(`  ${a.handle.padEnd(8)} ${a.password.padEnd(20)} ${a.note}`);
      }
      // Say how to require a second factor when nobody is asked for one.
      if (config.REQUIRE_MFA === "off") {
        lines.push("", "Second factor: not required (REQUIRE_MFA=off). Set REQUIRE_MFA=admins to require one of admins.");
      }
      return lines.join("\n") + "\n";
    },
    closeStreams() {
      streams.closeAll();
    },
    async stop() {
      streams.closeAll();
      // In-flight requests are done (server.ts waits for them): what they counted is written now.
      stopRetention();
      await meter.stop().catch((error: Error) => logger.warn("usage flush at stop failed", { error: error.message }));
      await events.stop();
      await replicas?.stop();
      await changes.stop();
      await oidc.stop?.();
      await closeNext?.().catch(() => {});
      if (metricsServer) {
        metricsServer.closeAllConnections();
        await new Promise((resolve) => metricsServer.close(resolve));
      }
    },
  };
}
