#!/usr/bin/env -S npx tsx
/**
 * The operator CLI of PRODUCT.md: `npm run platform -- <command>` (also the package's `bin`).
 * Arguments are parsed with node:util parseArgs and validated with the same zod schemas as the
 * portal; the work is done by lib/services, so the CLI cannot disagree with the portal.
 *
 * Database: DATABASE_URL when set. Otherwise the embedded PostgreSQL under DATA_DIR: if `npm start`
 * is running it is reached on EMBEDDED_PG_PORT with the password kept beside its data; if not, it
 * is started for the duration of the command.
 *
 * Output: human-readable, or one JSON document with --json. Errors: one line on stderr (a JSON line
 * with --json), exit code 2 for usage errors and 1 for everything else. Passwords, secret hashes and
 * database passwords are never printed; a client secret only once, by `apps create --approve` or
 * `apps secrets add|roll`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { z } from "zod";
import { defaultEnv, EnvError, env, resetEnv, type Env } from "../lib/env";
import { SVC_SCOPES, SVC_SCOPE_NAMES } from "../lib/scopes";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values = Record<string, string | boolean | string[] | undefined>;

class UsageError extends Error {}

interface Command {
  usage: string;
  summary: string;
  options: Options;
  /** Number of positional arguments after the command words. */
  positionals: string[];
  run(ctx: Context): Promise<Output>;
}

interface Context {
  values: Values;
  args: string[];
}

interface Output {
  json: unknown;
  text: string;
}

const JSON_OPTION: Options = { json: { type: "boolean" }, help: { type: "boolean", short: "h" } };

/** How the CLI names a member's role in its text output. */
const ROLE_WORDS = { admin: "a team admin", viewer: "a viewer" } as const;

/** Unix seconds, as on the API's wire (SPEC: `*_at` are integers in Unix seconds). */
const unix = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);

async function services() {
  const [apps, review, secrets, users, connectedApps, members, actor, schemas, userSchemas, usage, usageSchemas] = await Promise.all([
    import("../lib/services/apps"),
    import("../lib/services/app-review"),
    import("../lib/services/app-secrets"),
    import("../lib/services/users"),
    import("../lib/services/connected-apps"),
    import("../lib/services/app-members"),
    import("../lib/services/actor"),
    import("../lib/schemas/apps"),
    import("../lib/schemas/users"),
    import("../lib/services/usage"),
    import("../lib/schemas/usage"),
  ]);
  return { apps: { ...apps, ...review }, secrets, users, connectedApps, members, actor: actor.CLI_ACTOR, schemas, userSchemas, usage, usageSchemas };
}

/** First zod issue as one line, naming the flag rather than the internal field. */
function zodLine(error: z.ZodError, flags: Record<string, string>): string {
  const issue = error.issues[0]!;
  const field = String(issue.path[0] ?? "");
  const flag = flags[field] ?? (field ? `--${field}` : "argument");
  return `${flag}: ${issue.message}`;
}

function parseWith<T extends z.ZodType>(schema: T, input: unknown, flags: Record<string, string>): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new UsageError(zodLine(result.error, flags));
  return result.data;
}

const list = (v: unknown) => (Array.isArray(v) ? (v as string[]) : []);

type AppViewLike = Awaited<ReturnType<Awaited<ReturnType<typeof services>>["apps"]["approveApp"]>>;

/** A logo's absolute URL on the platform's origin, as the JSON names it (logo_url). */
function logoUrl(clientId: string, file: string | null | undefined): string | null {
  return file ? `${env().APP_URL}/media/logos/${clientId}/${file}` : null;
}

/** The links and logo of an app (issue 15), as every app JSON of the CLI names them. */
function identityJson(app: AppViewLike) {
  return {
    homepage_url: app.homepageUrl,
    privacy_policy_url: app.privacyPolicyUrl,
    terms_url: app.termsUrl,
    logo_url: logoUrl(app.clientId, app.logo),
  };
}

function appJson(app: AppViewLike) {
  return {
    client_id: app.clientId,
    name: app.name,
    type: app.type,
    status: app.status,
    status_reason: app.statusReason,
    revision: app.revision,
    owner: app.owner.handle,
    scopes: app.scopes,
    redirect_uris: app.redirectUris,
    post_logout_redirect_uris: app.postLogoutRedirectUris,
    ...identityJson(app),
    device: app.deviceFlow,
    created_at: unix(app.createdAt),
    requests_per_minute: app.requestsPerMinute,
    pending_change: app.pendingChange
      ? {
          ...(app.pendingChange.name !== undefined ? { name: app.pendingChange.name } : {}),
          ...(app.pendingChange.description !== undefined ? { description: app.pendingChange.description } : {}),
          ...(app.pendingChange.scopes ? { scopes: app.pendingChange.scopes } : {}),
          ...(app.pendingChange.redirectUris ? { redirect_uris: app.pendingChange.redirectUris } : {}),
          ...(app.pendingChange.postLogoutRedirectUris
            ? { post_logout_redirect_uris: app.pendingChange.postLogoutRedirectUris }
            : {}),
          ...(app.pendingChange.homepageUrl !== undefined ? { homepage_url: app.pendingChange.homepageUrl } : {}),
          ...(app.pendingChange.privacyPolicyUrl !== undefined ? { privacy_policy_url: app.pendingChange.privacyPolicyUrl } : {}),
          ...(app.pendingChange.termsUrl !== undefined ? { terms_url: app.pendingChange.termsUrl } : {}),
          ...(app.pendingChange.logo !== undefined ? { logo_url: logoUrl(app.clientId, app.pendingChange.logo) } : {}),
          ...(app.pendingChange.deviceFlow !== undefined ? { device: app.pendingChange.deviceFlow } : {}),
          requested_at: unix(app.pendingChange.requestedAt),
          requested_by: app.pendingChange.requestedBy,
        }
      : null,
  };
}

function statusLine(app: AppViewLike): string {
  const reason = app.statusReason ? ` (reason: ${app.statusReason})` : "";
  return `${app.clientId}  ${app.name}  ${app.type}  ${app.status}${reason}`;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

const APP_CREATE_FLAGS = {
  name: "--name",
  description: "--description",
  type: "--type",
  scopes: "--scope",
  redirectUris: "--redirect-uri",
  postLogoutRedirectUris: "--post-logout-redirect-uri",
  homepageUrl: "--homepage-url",
  privacyPolicyUrl: "--privacy-url",
  termsUrl: "--terms-url",
  logo: "--logo",
  deviceFlow: "--device",
};

/** The identity options of `apps create` and `apps update` (issue 15). */
const IDENTITY_OPTIONS = {
  "homepage-url": { type: "string" },
  "privacy-url": { type: "string" },
  "terms-url": { type: "string" },
  logo: { type: "string" },
} satisfies Options;
const IDENTITY_USAGE = "[--homepage-url URL] [--privacy-url URL] [--terms-url URL] [--logo FILE]";

/** `--logo FILE`: the file's bytes (checked by the schema and the service); `--remove-logo`: null. */
function logoOption(values: Record<string, unknown>): Uint8Array | null | undefined {
  if (values["remove-logo"] && values.logo !== undefined) throw new UsageError("--logo and --remove-logo exclude each other");
  if (values["remove-logo"]) return null;
  if (typeof values.logo !== "string") return undefined;
  try {
    return readFileSync(values.logo);
  } catch {
    throw new UsageError(`--logo: cannot read the file ${values.logo}`);
  }
}

/** The identity fields of an input: an empty URL clears a link. */
function identityInput(values: Record<string, unknown>) {
  return {
    homepageUrl: values["homepage-url"],
    privacyPolicyUrl: values["privacy-url"],
    termsUrl: values["terms-url"],
    logo: logoOption(values),
  };
}

/** --device / --no-device: undefined when neither is given; both at once is a usage error. */
function deviceFlag(values: Record<string, unknown>): boolean | undefined {
  if (values.device && values["no-device"]) throw new UsageError("give either --device or --no-device, not both");
  if (values.device) return true;
  if (values["no-device"]) return false;
  return undefined;
}

function transition(verb: "approve" | "reject" | "suspend"): Command {
  const withReason = verb !== "approve";
  return {
    usage: `apps ${verb} CLIENT_ID${withReason ? " [--reason R]" : ""} [--json]`,
    summary:
      verb === "approve"
        ? "Approve an application (also reinstates a suspended one: new tokens work, tokens issued before the suspension stay void)"
        : verb === "reject"
          ? "Reject a pending application, with a reason shown to its owner"
          : "Suspend an approved application: new token requests fail with invalid_client and every access token and refresh token it was issued stops working at once, for good",
    options: withReason ? { reason: { type: "string" } } : {},
    positionals: ["CLIENT_ID"],
    async run({ values, args }) {
      const { apps, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      let app;
      if (verb === "approve") app = await apps.approveApp(clientId, actor);
      else {
        const fallback = verb === "reject" ? "Rejected by the platform operator." : "Suspended by the platform operator.";
        const { reason } = parseWith(schemas.rejectAppSchema, { reason: values.reason ?? fallback }, { reason: "--reason" });
        app = verb === "reject" ? await apps.rejectApp(clientId, reason, actor) : await apps.suspendApp(clientId, reason, actor);
      }
      return {
        json: { client_id: app.clientId, status: app.status, status_reason: app.statusReason },
        text: `${verb === "approve" ? "Approved" : verb === "reject" ? "Rejected" : "Suspended"}: ${statusLine(app)}`,
      };
    },
  };
}

function userFlag(verb: "disable" | "enable" | "mute" | "unmute"): Command {
  return {
    usage: `users ${verb} HANDLE [--json]`,
    summary: {
      disable: "Disable an account: it can no longer sign in, and API calls with its tokens answer 403 forbidden at once",
      enable: "Re-enable a disabled account (its unexpired tokens work again)",
      mute: "Mute an account: it can no longer post to the global chat",
      unmute: "Unmute an account",
    }[verb],
    options: {},
    positionals: ["HANDLE"],
    async run({ args }) {
      const { users, userSchemas, actor } = await services();
      const handle = parseWith(userSchemas.handleSchema, args[0], { "": "HANDLE" });
      const user =
        verb === "disable" || verb === "enable"
          ? await users.setUserDisabled(handle, verb === "disable", actor)
          : await users.setUserMuted(handle, verb === "mute", actor);
      return {
        json: { handle: user.handle, disabled: user.disabled, muted: user.muted },
        text: `${user.handle}: ${user.disabled ? "disabled" : "enabled"}, ${user.muted ? "muted" : "not muted"}`,
      };
    },
  };
}

const connectedAppsCommand: Command = {
  usage: "users apps HANDLE [--json]",
  summary: "List the login clients a person has authorized (their Connected apps), most recently used first",
  options: {},
  positionals: ["HANDLE"],
  async run({ args }) {
    const { connectedApps, userSchemas, actor } = await services();
    const handle = parseWith(userSchemas.handleSchema, args[0], { "": "HANDLE" });
    const connected = await connectedApps.listConnectedApps(handle, actor);
    return {
      json: connected.map((app) => ({
        client_id: app.clientId,
        name: app.name,
        scopes: app.scopes,
        authorized_at: unix(app.authorizedAt),
        last_used_at: unix(app.lastUsedAt),
      })),
      text:
        connected.length === 0
          ? `${handle} has not authorized any app.`
          : connected
              .map((app) => `${app.clientId}  ${app.name}  ${app.scopes.join(" ")}  last used ${app.lastUsedAt?.toISOString() ?? "never"}`)
              .join("\n"),
    };
  },
};

const revokeAppCommand: Command = {
  usage: "users revoke-app HANDLE CLIENT_ID [--json]",
  summary:
    "Take back a person's authorization of an app: consent, grants and refresh tokens are removed and their access tokens for it stop working at once; the next sign-in asks for consent again",
  options: {},
  positionals: ["HANDLE", "CLIENT_ID"],
  async run({ args }) {
    const { connectedApps, schemas, userSchemas, actor } = await services();
    const handle = parseWith(userSchemas.handleSchema, args[0], { "": "HANDLE" });
    const clientId = parseWith(schemas.clientIdSchema, args[1], { "": "CLIENT_ID" });
    const result = await connectedApps.revokeConnectedApp(handle, clientId, actor);
    return {
      json: { handle, client_id: result.clientId, was_connected: result.wasConnected, revoked_grants: result.revokedGrants },
      text: result.wasConnected
        ? `Revoked ${handle}'s access to ${clientId} (${result.revokedGrants} grant and token records removed; access tokens void).`
        : `${handle} had not authorized ${clientId}; any tokens of theirs for it are void now.`,
    };
  },
};

function secretJson(secret: { id: string; hint: string; createdAt: Date; lastUsedAt: Date | null }) {
  return { id: secret.id, hint: secret.hint, created_at: unix(secret.createdAt), last_used_at: unix(secret.lastUsedAt) };
}

function revealedOutput(revealed: { secretId: string; clientSecret: string; secretHint: string }, what: string): Output {
  return {
    json: { id: revealed.secretId, client_secret: revealed.clientSecret, hint: revealed.secretHint },
    text: [
      `${what}`,
      `id:            ${revealed.secretId}`,
      `client_secret: ${revealed.clientSecret}`,
      "Store the secret now: it is shown only once and cannot be recovered.",
    ].join("\n"),
  };
}

const SECRET_COMMANDS: Record<string, Command> = {
  "apps update": {
    usage:
      "apps update CLIENT_ID [--name N] [--description D] [--scope SCOPE]… [--redirect-uri URL]… " +
      `[--post-logout-redirect-uri URL]… ${IDENTITY_USAGE} [--remove-logo] [--device|--no-device] [--json]`,
    summary:
      "Change an app (a given list replaces the current one; an empty URL clears a link). On an approved app, narrowing changes apply at once and widening or presentation ones (new scopes or URIs, name, description, links, logo, --device) wait for review as its pending_change",
    options: {
      ...IDENTITY_OPTIONS,
      "remove-logo": { type: "boolean" },
      name: { type: "string" },
      description: { type: "string" },
      "redirect-uri": { type: "string", multiple: true },
      "post-logout-redirect-uri": { type: "string", multiple: true },
      scope: { type: "string", multiple: true },
      device: { type: "boolean" },
      "no-device": { type: "boolean" },
    },
    positionals: ["CLIENT_ID"],
    async run({ values, args }) {
      const { apps, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const input = parseWith(
        schemas.updateAppSchema,
        {
          name: values.name,
          description: values.description,
          scopes: values.scope === undefined ? undefined : list(values.scope),
          redirectUris: values["redirect-uri"] === undefined ? undefined : list(values["redirect-uri"]),
          postLogoutRedirectUris:
            values["post-logout-redirect-uri"] === undefined ? undefined : list(values["post-logout-redirect-uri"]),
          ...identityInput(values),
          deviceFlow: deviceFlag(values),
        },
        APP_CREATE_FLAGS,
      );
      if (Object.values(input).every((v) => v === undefined)) throw new UsageError("nothing to change: give at least one option");
      const app = await apps.updateApp(clientId, input, actor);
      const waiting = app.pendingChange ? " (changes waiting for review: apps changes approve|reject)" : "";
      return { json: appJson(app), text: `Updated: ${statusLine(app)}${waiting}` };
    },
  },
  "apps limit": {
    usage: "apps limit CLIENT_ID (--per-minute N | --default) [--json]",
    summary: "Set an app's API request quota per minute (default 6,000); over it, requests get 429 rate_limited until the minute ends",
    options: { "per-minute": { type: "string" }, default: { type: "boolean" } },
    positionals: ["CLIENT_ID"],
    async run({ values, args }) {
      const { schemas, actor } = await services();
      const quotas = await import("../lib/services/api-quota");
      const { requestQuotaSchema } = await import("../lib/schemas/rate-limits");
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      if ((values["per-minute"] === undefined) === (values.default !== true)) {
        throw new UsageError("give either --per-minute N or --default");
      }
      const input = parseWith(
        requestQuotaSchema,
        { perMinute: values.default ? null : values["per-minute"] },
        { perMinute: "--per-minute" },
      );
      const app = await quotas.setAppRequestQuota(clientId, input, actor);
      return {
        json: appJson(app),
        text: `Quota of ${app.clientId}: ${app.requestsPerMinute} requests per minute${app.customQuota ? "" : " (the default)"}`,
      };
    },
  },
  "apps changes approve": {
    usage: "apps changes approve CLIENT_ID [--json]",
    summary: "Approve the change waiting on an approved app: new tokens and consents include what it adds",
    options: {},
    positionals: ["CLIENT_ID"],
    async run({ args }) {
      const { apps, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const app = await apps.approvePendingChange(clientId, actor);
      return { json: appJson(app), text: `Changes approved: ${statusLine(app)}` };
    },
  },
  "apps changes reject": {
    usage: "apps changes reject CLIENT_ID --reason R [--json]",
    summary: "Refuse the change waiting on an app, with a reason its team sees; the approved configuration stays",
    options: { reason: { type: "string" } },
    positionals: ["CLIENT_ID"],
    async run({ values, args }) {
      const { apps, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      if (values.reason === undefined) throw new UsageError("--reason is required (the team sees it)");
      const { reason } = parseWith(schemas.rejectAppSchema, { reason: values.reason }, { reason: "--reason" });
      const app = await apps.rejectPendingChange(clientId, reason, actor);
      return { json: appJson(app), text: `Changes refused: ${statusLine(app)}` };
    },
  },
  "apps members list": {
    usage: "apps members list CLIENT_ID [--json]",
    summary: "List an app's team: the owner, team admins (manage all but delete/transfer) and viewers (read-only)",
    options: {},
    positionals: ["CLIENT_ID"],
    async run({ args }) {
      const { members, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const team = await members.listMembers(clientId, actor);
      const rows = [
        { handle: team.owner.handle, role: "owner", added_at: null as number | null },
        ...team.members.map((m) => ({ handle: m.handle, role: m.role as string, added_at: unix(m.addedAt) })),
      ];
      return { json: rows, text: rows.map((r) => `${r.handle}  ${r.role}`).join("\n") };
    },
  },
  "apps members add": {
    usage: "apps members add CLIENT_ID HANDLE [--role admin|viewer] [--json]",
    summary: "Add a person to an app's team (default role viewer); for someone on the team already, change their role",
    options: { role: { type: "string" } },
    positionals: ["CLIENT_ID", "HANDLE"],
    async run({ values, args }) {
      const { members, schemas, userSchemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const handle = parseWith(userSchemas.handleSchema, args[1], { "": "HANDLE" });
      const role = parseWith(schemas.memberRoleSchema, values.role ?? "viewer", { "": "--role" });
      const { member, added } = await members.setMember(clientId, handle, role, actor);
      return {
        json: { client_id: clientId, handle: member.handle, role: member.role, added },
        text: `${added ? "Added" : "Changed"}: @${member.handle} is ${ROLE_WORDS[member.role]} of ${clientId}`,
      };
    },
  },
  "apps members remove": {
    usage: "apps members remove CLIENT_ID HANDLE [--json]",
    summary: "Remove a person from an app's team",
    options: {},
    positionals: ["CLIENT_ID", "HANDLE"],
    async run({ args }) {
      const { members, schemas, userSchemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const handle = parseWith(userSchemas.handleSchema, args[1], { "": "HANDLE" });
      const { removed } = await members.removeMember(clientId, handle, actor);
      return {
        json: { client_id: clientId, handle, removed },
        text: removed ? `Removed @${handle} from ${clientId}` : `@${handle} was not on ${clientId}'s team`,
      };
    },
  },
  "apps transfer": {
    usage: "apps transfer CLIENT_ID HANDLE [--json]",
    summary: "Make another person the app's owner; the previous owner stays on the team as an admin",
    options: {},
    positionals: ["CLIENT_ID", "HANDLE"],
    async run({ args }) {
      const { members, schemas, userSchemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const handle = parseWith(userSchemas.handleSchema, args[1], { "": "HANDLE" });
      const app = await members.transferOwnership(clientId, handle, actor);
      return { json: appJson(app), text: `${clientId} now belongs to @${app.owner.handle}` };
    },
  },
  "apps usage": {
    usage: "apps usage CLIENT_ID [--since 24h|7d|30d] [--json]",
    summary: "An app's API requests and token grants: totals by route and status, p50/p95 latency (issue 16)",
    options: { since: { type: "string" } },
    positionals: ["CLIENT_ID"],
    async run({ values, args }) {
      const { usage, usageSchemas, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const range = parseWith(usageSchemas.usageRangeSchema, values.since ?? "24h", { "": "--since" });
      const summary = await usage.getAppUsage(clientId, range, actor);
      const json = {
        client_id: clientId,
        since: unix(summary.since),
        range,
        total: summary.total,
        by_status_class: summary.byClass,
        p50_ms: summary.p50Ms,
        p95_ms: summary.p95Ms,
        routes: summary.routes.map((r) => ({
          route: r.route,
          total: r.total,
          p50_ms: r.p50Ms,
          p95_ms: r.p95Ms,
          by_status: r.byStatus.map((b) => ({ status: b.status, error_code: b.errorCode, count: b.count })),
        })),
        errors: summary.errors.map((e) => ({ code: e.code, status: e.status, count: e.count })),
      };
      const ms = (v: number | null) => (v === null ? "-" : `${v} ms`);
      const text = summary.routes.length
        ? [
            `${clientId}, last ${range}: ${summary.total} API requests (2xx ${summary.byClass["2xx"]}, 4xx ${summary.byClass["4xx"]}, 5xx ${summary.byClass["5xx"]}), p50 ${ms(summary.p50Ms)}, p95 ${ms(summary.p95Ms)}`,
            ...summary.routes.map(
              (r) =>
                `  ${r.route}  ${r.total}  p50 ${ms(r.p50Ms)}  p95 ${ms(r.p95Ms)}  ` +
                r.byStatus.map((b) => `${b.status}${b.errorCode ? ` ${b.errorCode}` : ""}: ${b.count}`).join(", "),
            ),
          ].join("\n")
        : `${clientId}: no requests in the last ${range}.`;
      return { json, text };
    },
  },
  "apps requests": {
    usage: "apps requests CLIENT_ID [--status 2xx|4xx|5xx|NNN] [--route R] [--request-id ID] [--limit N] [--json]",
    summary: "An app's request log, newest first: time, method, route, status, error code, latency, request id, user",
    options: { status: { type: "string" }, route: { type: "string" }, "request-id": { type: "string" }, limit: { type: "string" } },
    positionals: ["CLIENT_ID"],
    async run({ values, args }) {
      const { usage, usageSchemas, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const filter = parseWith(
        usageSchemas.requestLogFilterSchema,
        { status: values.status, route: values.route, requestId: values["request-id"], limit: values.limit ?? "50" },
        { status: "--status", route: "--route", requestId: "--request-id", limit: "--limit" },
      );
      const entries = await usage.listRequestLog(clientId, filter, actor);
      const json = entries.map((e) => ({
        at: e.at.toISOString(),
        method: e.method,
        route: e.route,
        status: e.status,
        error_code: e.errorCode,
        latency_ms: e.latencyMs,
        request_id: e.requestId,
        user: e.userHandle,
      }));
      const text = entries.length
        ? entries
            .map((e) => `${e.at.toISOString()}  ${e.method} ${e.route}  ${e.status}${e.errorCode ? ` ${e.errorCode}` : ""}  ${e.latencyMs} ms  ${e.requestId}${e.userHandle ? `  @${e.userHandle}` : ""}`)
            .join("\n")
        : "No matching requests.";
      return { json, text };
    },
  },
  "usage retention": {
    usage: "usage retention [--json]",
    summary: "Run the usage rollup and retention job now (servers also run it every USAGE_RETENTION_SECONDS)",
    options: {},
    positionals: [],
    async run() {
      const { usage } = await services();
      const result = await usage.runUsageRetention();
      return {
        json: { rolled_up: result.rolledUp, deleted: result.deleted, log_trimmed: result.logTrimmed },
        text: `Rolled up ${result.rolledUp} minute rows, deleted ${result.deleted} old rows, trimmed ${result.logTrimmed} request-log rows.`,
      };
    },
  },
  "apps secrets list": {
    usage: "apps secrets list CLIENT_ID [--json]",
    summary: "List an API client's active secrets (id, last four characters, created, last used; never the value)",
    options: {},
    positionals: ["CLIENT_ID"],
    async run({ args }) {
      const { secrets, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const list = await secrets.listSecrets(clientId, actor);
      const when = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace("T", " ") + " UTC" : "never");
      return {
        json: list.map(secretJson),
        text: list.length
          ? list.map((s) => `${s.id}  …${s.hint}  created ${when(s.createdAt)}  last used ${when(s.lastUsedAt)}`).join("\n")
          : "No secret yet (it is revealed once, after approval).",
      };
    },
  },
  "apps secrets add": {
    usage: "apps secrets add CLIENT_ID [--json]",
    summary:
      "Add a second secret for rotation without downtime, printed once; the current secret and every token keep working (at most two)",
    options: {},
    positionals: ["CLIENT_ID"],
    async run({ args }) {
      const { secrets, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const revealed = await secrets.addSecret(clientId, actor);
      return revealedOutput(
        revealed,
        `Added a secret to ${clientId}. Both active secrets work; retire the old one once every client uses the new one.`,
      );
    },
  },
  "apps secrets retire": {
    usage: "apps secrets retire CLIENT_ID SECRET_ID [--json]",
    summary:
      "Retire a secret: token requests with it fail with invalid_client at once; tokens already issued with it keep working until they expire",
    options: {},
    positionals: ["CLIENT_ID", "SECRET_ID"],
    async run({ args }) {
      const { secrets, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const secretId = parseWith(schemas.secretIdSchema, args[1], { "": "SECRET_ID" });
      const retired = await secrets.retireSecret(clientId, secretId, actor);
      return {
        json: { ...secretJson(retired), retired: true },
        text: `Retired ${retired.id} (…${retired.hint}) of ${clientId}: it no longer gets tokens. Tokens already issued with it work until they expire.`,
      };
    },
  },
  "apps secrets roll": {
    usage: "apps secrets roll CLIENT_ID [--json]",
    summary:
      "Compromise: one new secret, printed once; every other secret stops working and every access token of the app is void at once",
    options: {},
    positionals: ["CLIENT_ID"],
    async run({ args }) {
      const { secrets, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const revealed = await secrets.rollSecret(clientId, actor);
      return revealedOutput(
        revealed,
        `Rolled the secret of ${clientId}: every other secret stopped working and every access token of the app is void.`,
      );
    },
  },
};

const COMMANDS: Record<string, Command> = {
  "apps create": {
    usage:
      "apps create --name N --type api|login --owner HANDLE [--description D] [--redirect-uri URL]… " +
      `[--post-logout-redirect-uri URL]… [--scope SCOPE]… ${IDENTITY_USAGE} [--device] [--approve] [--json]`,
    summary:
      "Register an application; with --approve an API client's secret is printed once; --device allows device sign-in (login clients)",
    options: {
      ...IDENTITY_OPTIONS,
      name: { type: "string" },
      description: { type: "string" },
      type: { type: "string" },
      owner: { type: "string" },
      "redirect-uri": { type: "string", multiple: true },
      "post-logout-redirect-uri": { type: "string", multiple: true },
      scope: { type: "string", multiple: true },
      device: { type: "boolean" },
      approve: { type: "boolean" },
    },
    positionals: [],
    async run({ values }) {
      const { apps, users, schemas, userSchemas, actor } = await services();
      if (values.owner === undefined) throw new UsageError("--owner is required (the handle of the app's owner)");
      const ownerHandle = parseWith(userSchemas.handleSchema, values.owner, { "": "--owner" });
      if (values.name === undefined) throw new UsageError("--name is required");
      if (values.type === undefined) throw new UsageError("--type is required (api or login)");
      const input = parseWith(
        schemas.createAppSchema,
        {
          name: values.name,
          description: values.description ?? "",
          type: values.type,
          scopes: list(values.scope),
          redirectUris: list(values["redirect-uri"]),
          postLogoutRedirectUris: list(values["post-logout-redirect-uri"]),
          ...identityInput(values),
          deviceFlow: values.device === true,
        },
        APP_CREATE_FLAGS,
      );
      const owner = await users.getUserByHandle(ownerHandle);
      let app = await apps.createApp(input, owner, actor);
      if (values.approve) app = await apps.approveApp(app.clientId, actor);
      // The same reveal-once path as the portal: the secret exists only in this output.
      const secret =
        app.type === "api" && app.status === "approved" ? await (await services()).secrets.revealSecretOnce(app.clientId, actor) : null;
      const lines = [`Created ${app.type === "api" ? "API client" : "login client"} "${app.name}" for ${owner.handle}.`];
      lines.push(`client_id: ${app.clientId}`, `status:    ${app.status}`);
      if (app.deviceFlow) lines.push("device:    allowed (device sign-in)");
      if (secret) {
        lines.push(`client_secret: ${secret.clientSecret}`, "Store the secret now: it is shown only once and cannot be recovered.");
      }
      return {
        // PRODUCT.md fixes this shape ({ client_id, status, client_secret? }); the device flag, links
        // and logo are in apps list / apps show.
        json: { client_id: app.clientId, status: app.status, ...(secret ? { client_secret: secret.clientSecret } : {}) },
        text: lines.join("\n"),
      };
    },
  },
  "apps approve": transition("approve"),
  "apps reject": transition("reject"),
  "apps suspend": transition("suspend"),
  "apps show": {
    usage: "apps show CLIENT_ID [--json]",
    summary: "One application's configuration, with its pending change",
    options: {},
    positionals: ["CLIENT_ID"],
    async run({ args }) {
      const { apps, schemas, actor } = await services();
      const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
      const app = await apps.getAppForViewer(clientId, actor);
      const lines = [
        statusLine(app),
        `owner:   ${app.owner.handle}`,
        `scopes:  ${app.scopes.join(" ") || "(none)"}`,
        ...(app.type === "login"
          ? [`redirect_uris: ${app.redirectUris.join(" ")}`, `device:  ${app.deviceFlow ? "allowed" : "off"}`]
          : []),
        ...(app.pendingChange ? ["changes waiting for review (apps changes approve|reject)"] : []),
      ];
      return { json: appJson(app), text: lines.join("\n") };
    },
  },
  "apps list": {
    usage: "apps list [--status pending|approved|rejected|suspended] [--json]",
    summary: "List applications, oldest first",
    options: { status: { type: "string" } },
    positionals: [],
    async run({ values }) {
      const { apps, schemas } = await services();
      const status =
        values.status === undefined ? undefined : parseWith(schemas.appStatusSchema, values.status, { "": "--status" });
      const all = [];
      let cursor: string | undefined;
      do {
        const page = await apps.listApps({ status, cursor, limit: 200 });
        all.push(...page.apps);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const text = all.length
        ? all.map((a) => `${statusLine(a)}  owner=${a.owner.handle}`).join("\n")
        : "No applications.";
      return { json: { apps: all.map(appJson) }, text };
    },
  },
  ...SECRET_COMMANDS,
  "users create": {
    usage: "users create --handle H (--password P | --password-stdin) [--admin] [--display-name NAME] [--json]",
    summary: "Create an account that can sign in (--password-stdin keeps the password out of shell history)",
    options: {
      handle: { type: "string" },
      password: { type: "string" },
      "password-stdin": { type: "boolean" },
      admin: { type: "boolean" },
      "display-name": { type: "string" },
    },
    positionals: [],
    async run({ values }) {
      const { users, userSchemas, actor } = await services();
      if (values.handle === undefined) throw new UsageError("--handle is required");
      if (values.password === undefined && !values["password-stdin"]) {
        throw new UsageError("--password or --password-stdin is required");
      }
      if (values.password !== undefined && values["password-stdin"]) {
        throw new UsageError("give either --password or --password-stdin, not both");
      }
      const password = values["password-stdin"] ? await readStdin() : values.password;
      const input = parseWith(
        userSchemas.createUserSchema,
        { handle: values.handle, password, admin: values.admin === true, displayName: values["display-name"] },
        { handle: "--handle", password: "--password", displayName: "--display-name" },
      );
      const user = await users.createUser(input, actor);
      return {
        json: { id: user.id, handle: user.handle, display_name: user.displayName, role: user.role },
        text: `Created ${user.role} ${user.handle} (id ${user.id}).`,
      };
    },
  },
  "users disable": userFlag("disable"),
  "users enable": userFlag("enable"),
  "users mute": userFlag("mute"),
  "users unmute": userFlag("unmute"),
  "users apps": connectedAppsCommand,
  "users revoke-app": revokeAppCommand,
  "keys rotate": {
    usage: "keys rotate [--json]",
    summary:
      "Rotate the token signing keys: new keys sign from now on, retired ones stay published until their tokens expire",
    options: {},
    positionals: [],
    async run() {
      // keys.ts logs each generated key at info level on stdout, which would break --json output.
      defaultEnv("LOG_LEVEL", "warn");
      const [{ rotateSigningKeys }, { recordAudit, CLI_ACTOR }] = await Promise.all([
        import("../lib/oidc/keys"),
        import("../lib/services/audit"),
      ]);
      const { retired } = await rotateSigningKeys();
      await recordAudit({ actor: CLI_ACTOR, action: "keys.rotate", targetType: "setting", targetId: "signing-keys", detail: { retired } });
      return {
        json: { retired },
        text:
          `Rotated the signing keys (retired: ${retired.join(", ") || "none"}).\n` +
          "Running processes switch to the new keys within SIGNING_KEY_POLL_SECONDS (default 60).",
      };
    },
  },
};

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    "Operator CLI of the developer platform.",
    "",
    "Usage: npm run platform -- <command> [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    "",
    "Every command accepts --json (machine-readable output) and --help.",
    "Database: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR (reused when `npm start` runs).",
    "Exit codes: 0 ok, 1 failed (unknown user or app, conflict, database), 2 bad usage.",
  ].join("\n");
}

function commandHelp(name: string, command: Command): string {
  const lines = [`Usage: npm run platform -- ${command.usage}`, "", `${command.summary}.`];
  if (name === "apps create") {
    lines.push("", "Scopes (--scope, repeatable):", ...SVC_SCOPE_NAMES.map((s) => `  ${s.padEnd(24)}${SVC_SCOPES[s]}`));
    lines.push("", "Redirect URIs: absolute https URLs (http only for localhost), no fragment, at most 10.");
  }
  return lines.join("\n");
}

/** The running embedded PostgreSQL of `npm start`, if there is one on this data dir. */
async function connectToRunningEmbedded(config: Env): Promise<string | null> {
  let password: string;
  try {
    password = readFileSync(path.join(path.resolve(config.DATA_DIR), "pg-password"), "utf8").trim();
  } catch {
    return null;
  }
  const url = `postgresql://platform:${encodeURIComponent(password)}@127.0.0.1:${config.EMBEDDED_PG_PORT}/platform`;
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return url;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

async function openDatabase(config: Env): Promise<{ close(): Promise<void> }> {
  const { migrate } = await import("../lib/database/migrate");
  const { describeConnectionError, prepareDatabase } = await import("../lib/database/prepare");
  let url = config.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) url = (await connectToRunningEmbedded(config)) ?? undefined;
  if (url) {
    try {
      // Same rule as the server: apply pending migrations, never drop anything.
      await migrate(url);
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new Error(code ? describeConnectionError(error, url) : (error as Error).message.split("\n")[0]);
    }
  } else {
    const prepared = await prepareDatabase(config, (line) => process.stderr.write(`${line}\n`));
    url = prepared.url;
    stopEmbedded = () => prepared.embedded?.stop() ?? Promise.resolve();
  }
  process.env.DATABASE_URL = url;
  resetEnv();
  const { closeDb } = await import("../lib/database/client");
  return {
    async close() {
      await closeDb();
      await stopEmbedded?.();
    },
  };
}

const LEADING_FLAGS = new Set(["--json", "--help", "-h"]);

/** The command words (two or three) come first (after --json/--help at most), so a flag value is never one. */
function commandWords(argv: string[]): { words: string[]; start: number } {
  let start = 0;
  while (start < argv.length && LEADING_FLAGS.has(argv[start]!)) start++;
  const words: string[] = [];
  for (let i = start; i < argv.length && words.length < 3 && !argv[i]!.startsWith("-"); i++) words.push(argv[i]!);
  return { words, start };
}

function findCommand(argv: string[]): { name: string; command: Command; rest: string[] } | null {
  const { words, start } = commandWords(argv);
  // The longest match wins: `apps secrets list X` before `apps approve X`.
  for (const count of [3, 2]) {
    if (words.length < count) continue;
    const name = words.slice(0, count).join(" ");
    const command = COMMANDS[name];
    if (command) return { name, command, rest: [...argv.slice(0, start), ...argv.slice(start + count)] };
  }
  return null;
}

async function main(argv: string[]): Promise<number> {
  const wantsJson = argv.includes("--json");
  const fail = (code: number, error: string, message: string) => {
    const line = wantsJson ? JSON.stringify({ error: { code: error, message } }) : `Error: ${message}`;
    process.stderr.write(`${line}\n`);
    return code;
  };

  let config: Env;
  try {
    config = env();
  } catch (error) {
    if (error instanceof EnvError) return fail(1, "invalid_environment", error.message);
    throw error;
  }

  const found = findCommand(argv);
  if (!found) {
    if (argv.length === 0 || argv.every((a) => a === "--help" || a === "-h" || a === "help")) {
      process.stdout.write(`${help()}\n`);
      return 0;
    }
    const words = commandWords(argv).words.slice(0, 2).join(" ");
    return fail(2, "invalid_request", `unknown command "${words || argv.join(" ")}" (run with --help to list commands)`);
  }
  const { name, command, rest } = found;

  let values: Values;
  let args: string[];
  try {
    const parsed = parseArgs({ args: rest, options: { ...command.options, ...JSON_OPTION }, allowPositionals: true, strict: true });
    values = parsed.values as Values;
    args = parsed.positionals;
  } catch (error) {
    // parseArgs explains at length; keep what names the option.
    const message = (error as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message);
    const short = unknown ? `unknown option ${unknown[1]} for ${name}` : message.split("\n")[0]!.replace(/\.$/, "");
    return fail(2, "invalid_request", `${short} (usage: ${command.usage})`);
  }
  if (values.help) {
    process.stdout.write(`${commandHelp(name, command)}\n`);
    return 0;
  }
  if (args.length !== command.positionals.length) {
    const expected = command.positionals.length ? command.positionals.join(" ") : "no arguments";
    return fail(2, "invalid_request", `${name} expects ${expected} (usage: ${command.usage})`);
  }

  let database;
  try {
    database = await openDatabase(config);
  } catch (error) {
    return fail(1, "service_unavailable", (error as Error).message.split("\n")[0]!);
  }
  try {
    const output = await command.run({ values, args });
    process.stdout.write(`${wantsJson || values.json ? JSON.stringify(output.json, null, 2) : output.text}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail(2, "invalid_request", error.message);
    const { isAppError } = await import("../lib/errors");
    if (isAppError(error)) return fail(1, error.code, error.message);
    // Unknown failures: one line, no stack, and never a connection string (it holds a password).
    const first = String((error as Error).message ?? error).split("\n")[0]!.replace(/postgres(ql)?:\/\/\S+/g, "<database>");
    return fail(1, "internal_error", `${name} failed: ${first}`);
  } finally {
    await database.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
