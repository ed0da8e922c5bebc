import { parseWith, services, type Command } from "./command";
import { requestLogJson, usageJson } from "./json";

/** `apps usage`, `apps requests` and `usage retention`: usage metering. */

export const appsUsage: Command = {
  usage: "apps usage CLIENT_ID [--since 24h|7d|30d] [--mode live|sandbox] [--json]",
  summary: "An app's API requests and token grants, live or its sandbox's: totals by route and status, p50/p95 latency (issue 16, 26)",
  options: { since: { type: "string" }, mode: { type: "string" } },
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const { usage, usageSchemas, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const range = parseWith(usageSchemas.usageRangeSchema, values.since ?? "24h", { "": "--since" });
    const mode = parseWith(usageSchemas.usageModeSchema, values.mode ?? "live", { "": "--mode" });
    const summary = await usage.getAppUsage(clientId, range, actor, { mode });
    const name = summary.clientId;
    const ms = (v: number | null) => (v === null ? "-" : `${v} ms`);
    const text = summary.routes.length
      ? [
          `${name}, last ${range}: ${summary.total} API requests (2xx ${summary.byClass["2xx"]}, 4xx ${summary.byClass["4xx"]}, 5xx ${summary.byClass["5xx"]}), p50 ${ms(summary.p50Ms)}, p95 ${ms(summary.p95Ms)}`,
          ...summary.routes.map(
            (r) =>
              `  ${r.route}  ${r.total}  p50 ${ms(r.p50Ms)}  p95 ${ms(r.p95Ms)}  ` +
              r.byStatus.map((b) => `${b.status}${b.errorCode ? ` ${b.errorCode}` : ""}: ${b.count}`).join(", "),
          ),
          ...(summary.unauthenticated.total ? [`  unauthenticated callers (not counted above): ${summary.unauthenticated.total} failed token requests`] : []),
        ].join("\n")
      : `${name}: no requests in the last ${range}.`;
    return { json: usageJson(name, range, summary), text };
  },
};

export const appsRequests: Command = {
  usage:
    "apps requests CLIENT_ID [--status 2xx|4xx|5xx|NNN] [--route R] [--request-id ID] [--mode live|sandbox|all] [--since TIME] [--until TIME] [--limit N] [--json]",
  summary:
    "An app's request log, newest first: time, method, route or path, status, error code and message, latency, rate limit, request id, user, live or sandbox",
  options: {
    status: { type: "string" },
    route: { type: "string" },
    "request-id": { type: "string" },
    mode: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    limit: { type: "string" },
  },
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const { usage, usageSchemas, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const filter = parseWith(
      usageSchemas.requestLogFilterSchema,
      {
        status: values.status,
        route: values.route,
        requestId: values["request-id"],
        mode: values.mode,
        since: values.since,
        until: values.until,
        limit: values.limit ?? "50",
      },
      { status: "--status", route: "--route", requestId: "--request-id", mode: "--mode", since: "--since", until: "--until", limit: "--limit" },
    );
    const entries = await usage.listRequestLog(clientId, filter, actor);
    const text = entries.length
      ? entries
          .map((e) => `${new Date(e.atMs).toISOString()}  ${e.mode === "sandbox" ? "[sandbox]  " : ""}${e.method} ${e.route}  ${e.status}${e.errorCode ? ` ${e.errorCode}` : ""}  ${e.latencyMs} ms  ${e.requestId}${e.userHandle ? `  @${e.userHandle}` : ""}`)
          .join("\n")
      : "No matching requests.";
    return { json: entries.map(requestLogJson), text };
  },
};

export const usageRetention: Command = {
  usage: "usage retention [--json]",
  summary: "Run the usage rollup and retention job now (servers also run it every USAGE_RETENTION_SECONDS)",
  options: {},
  positionals: [],
  async run() {
    const { usage } = await services();
    const result = await usage.runUsageRetention();
    return {
      json: {
        rolled_up: result.rolledUp,
        deleted: result.deleted,
        log_trimmed: result.logTrimmed,
        idempotency_keys_expired: result.idempotencyKeysExpired,
        mcp_subscriptions_expired: result.mcpSubscriptionsExpired,
      },
      text:
        `Rolled up ${result.rolledUp} minute rows, deleted ${result.deleted} old rows, trimmed ${result.logTrimmed} request-log rows, ` +
        `deleted ${result.idempotencyKeysExpired} expired idempotency keys and ${result.mcpSubscriptionsExpired} subscriptions of idle MCP sessions.`,
    };
  },
};
