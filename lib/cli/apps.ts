import { readFileSync } from "node:fs";
import type { AppView } from "../schemas/apps";
import { SVC_SCOPES, SVC_SCOPE_NAMES } from "../scopes";
import { list, parseWith, services, UsageError, type Command, type Options } from "./command";
import { appJson } from "./json";

/** `apps …`: register, review, show, change and hand over applications. */

function statusLine(app: AppView): string {
  const reason = app.statusReason ? ` (reason: ${app.statusReason})` : "";
  return `${app.clientId}  ${app.name}  ${app.type}  ${app.status}${reason}`;
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
  requirePar: "--require-par",
  requireDpop: "--require-dpop",
};

/** The identity options of `apps create` and `apps update`. */
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
/** A switch given as --NAME or --no-NAME (undefined: neither). */
function switchFlag(values: Record<string, unknown>, name: string): boolean | undefined {
  if (values[name] && values[`no-${name}`]) throw new UsageError(`give either --${name} or --no-${name}, not both`);
  if (values[name]) return true;
  if (values[`no-${name}`]) return false;
  return undefined;
}

export const appsCreate: Command = {
  usage:
    "apps create --name N --type api|login --owner HANDLE [--description D] [--redirect-uri URL]… " +
    `[--post-logout-redirect-uri URL]… [--scope SCOPE]… ${IDENTITY_USAGE} [--device] [--require-par] [--require-dpop] [--approve] [--json]`,
  summary:
    "Register an application; with --approve an API client's secret is printed once; --device allows device sign-in, --require-par refuses authorization requests that were not pushed first (login clients); --require-dpop binds every token to a key the app holds (DPoP, API and login clients)",
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
    "require-par": { type: "boolean" },
    "require-dpop": { type: "boolean" },
    approve: { type: "boolean" },
  },
  positionals: [],
  helpDetails: [
    "",
    "Scopes (--scope, repeatable):",
    ...SVC_SCOPE_NAMES.map((s) => `  ${s.padEnd(24)}${SVC_SCOPES[s]}`),
    "",
    "Redirect URIs: absolute https URLs (http only for localhost), no fragment, at most 10.",
  ],
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
        requirePar: values["require-par"] === true,
        requireDpop: values["require-dpop"] === true,
      },
      APP_CREATE_FLAGS,
    );
    const owner = await users.getUserByHandle(ownerHandle);
    const created = await apps.createApp(input, owner, actor);
    const { sandbox } = created;
    let app: AppView = created;
    if (values.approve) app = await apps.approveApp(app.clientId, actor);
    // The same reveal-once path as the portal: the secret exists only in this output.
    const secret =
      app.type === "api" && app.status === "approved" ? await (await services()).secrets.revealSecretOnce(app.clientId, actor) : null;
    const lines = [`Created ${app.type === "api" ? "API client" : "login client"} "${app.name}" for ${owner.handle}.`];
    lines.push(`client_id: ${app.clientId}`, `status:    ${app.status}`);
    if (app.deviceFlow) lines.push("device:    allowed (device sign-in)");
    if (app.requirePar) lines.push("par:       required (pushed authorization requests)");
    if (app.requireDpop) lines.push("dpop:      required (DPoP-bound tokens)");
    if (secret) {
      lines.push(`client_secret: ${secret.clientSecret}`, "Store the secret now: it is shown only once and cannot be recovered.");
    }
    lines.push(`sandbox client_id: ${sandbox.clientId}`);
    if (sandbox.clientSecret) lines.push(`sandbox client_secret: ${sandbox.clientSecret}`, "Shown only once too (roll it with apps sandbox secret roll).");
    return {
      // PRODUCT.md fixes this shape ({ client_id, status, client_secret? }); the device flag, links
      // and logo are in apps list / apps show. Issue 26 adds the sandbox (its secret for API clients only).
      json: {
        client_id: app.clientId,
        status: app.status,
        ...(secret ? { client_secret: secret.clientSecret } : {}),
        sandbox: { client_id: sandbox.clientId, ...(sandbox.clientSecret ? { client_secret: sandbox.clientSecret } : {}) },
      },
      text: lines.join("\n"),
    };
  },
};

/** The answer of `apps approve|reject|suspend`: PRODUCT.md's `{ client_id, status, status_reason }`. */
function transitionOutput(app: AppView, done: string, reviewed?: number) {
  return {
    json: {
      client_id: app.clientId,
      status: app.status,
      status_reason: app.statusReason,
      ...(reviewed !== undefined ? { reviewed_revision: reviewed } : {}),
    },
    text: `${done}: ${statusLine(app)}${reviewed !== undefined ? ` (revision ${reviewed})` : ""}`,
  };
}

/** `--expect-revision N`: the revision the operator looked at (apps show prints it). */
const EXPECT_REVISION: Options = { "expect-revision": { type: "string" } };
const EXPECT_REVISION_USAGE = "[--expect-revision N]";

/**
 * The revision a review decision acts on: the one the operator names, or else the current one,
 * read here and then required by the service under its row lock, so what is printed is exactly
 * what was decided on (an edit landing in between refuses the decision rather than riding it).
 */
async function reviewedRevision(clientId: string, values: Record<string, unknown>): Promise<number> {
  const { apps, schemas, actor } = await services();
  if (values["expect-revision"] !== undefined) {
    return parseWith(schemas.revisionSchema, Number(values["expect-revision"]), { "": "--expect-revision" });
  }
  return (await apps.getAppForViewer(clientId, actor)).revision;
}

export const appsApprove: Command = {
  usage: `apps approve CLIENT_ID ${EXPECT_REVISION_USAGE} [--json]`,
  summary:
    "Approve an application (also reinstates a suspended one: new tokens work, tokens issued before the suspension stay void)",
  options: EXPECT_REVISION,
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const { apps, schemas, actor } = await services();
    const clientId = parseWith(schemas.anyClientIdSchema, args[0], { "": "CLIENT_ID" });
    const revision = await reviewedRevision(clientId, values);
    return transitionOutput(await apps.approveApp(clientId, actor, { revision }), "Approved", revision);
  },
};

export const appsReject: Command = {
  usage: `apps reject CLIENT_ID [--reason R] ${EXPECT_REVISION_USAGE} [--json]`,
  summary: "Reject a pending application, with a reason shown to its owner",
  options: { reason: { type: "string" }, ...EXPECT_REVISION },
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const { apps, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const { reason } = parseWith(
      schemas.rejectAppSchema,
      { reason: values.reason ?? "Rejected by the platform operator." },
      { reason: "--reason" },
    );
    const revision = await reviewedRevision(clientId, values);
    return transitionOutput(await apps.rejectApp(clientId, reason, actor, { revision }), "Rejected", revision);
  },
};

export const appsSuspend: Command = {
  usage: "apps suspend CLIENT_ID [--reason R] [--json]",
  summary:
    "Suspend an approved application: new token requests fail with invalid_client and every access token and refresh token it was issued stops working at once, for good",
  options: { reason: { type: "string" } },
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const { apps, schemas, actor } = await services();
    const clientId = parseWith(schemas.anyClientIdSchema, args[0], { "": "CLIENT_ID" });
    const { reason } = parseWith(
      schemas.rejectAppSchema,
      { reason: values.reason ?? "Suspended by the platform operator." },
      { reason: "--reason" },
    );
    return transitionOutput(await apps.suspendApp(clientId, reason, actor), "Suspended");
  },
};

export const appsShow: Command = {
  usage: "apps show CLIENT_ID [--json]",
  summary: "One application's configuration, with its pending change",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { apps, schemas, actor } = await services();
    const clientId = parseWith(schemas.anyClientIdSchema, args[0], { "": "CLIENT_ID" });
    const app = await apps.getAppForViewer(clientId, actor);
    const lines = [
      statusLine(app),
      `owner:   ${app.owner.handle}`,
      `scopes:  ${app.scopes.join(" ") || "(none)"}`,
      ...(app.type === "login"
        ? [
            `redirect_uris: ${app.redirectUris.join(" ")}`,
            `device:  ${app.deviceFlow ? "allowed" : "off"}`,
            `par:     ${app.requirePar ? "required" : "optional"}`,
          ]
        : []),
      `dpop:    ${app.requireDpop ? "required" : "not required"}`,
      ...(app.pendingChange ? ["changes waiting for review (apps changes approve|reject)"] : []),
    ];
    return { json: appJson(app), text: lines.join("\n") };
  },
};

export const appsList: Command = {
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
};

export const appsUpdate: Command = {
  usage:
    "apps update CLIENT_ID [--name N] [--description D] [--scope SCOPE]… [--redirect-uri URL]… " +
    `[--post-logout-redirect-uri URL]… ${IDENTITY_USAGE} [--remove-logo] [--device|--no-device] [--require-par|--no-require-par] [--require-dpop|--no-require-dpop] [--json]`,
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
    "require-par": { type: "boolean" },
    "no-require-par": { type: "boolean" },
    "require-dpop": { type: "boolean" },
    "no-require-dpop": { type: "boolean" },
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
        deviceFlow: switchFlag(values, "device"),
        requirePar: switchFlag(values, "require-par"),
        requireDpop: switchFlag(values, "require-dpop"),
      },
      APP_CREATE_FLAGS,
    );
    if (Object.values(input).every((v) => v === undefined)) throw new UsageError("nothing to change: give at least one option");
    const app = await apps.updateApp(clientId, input, actor);
    const waiting = app.pendingChange ? " (changes waiting for review: apps changes approve|reject)" : "";
    return { json: appJson(app), text: `Updated: ${statusLine(app)}${waiting}` };
  },
};

export const appsLimit: Command = {
  usage: "apps limit CLIENT_ID (--per-minute N | --default) [--json]",
  summary: "Set an app's API request quota per minute (default 6,000); over it, requests get 429 rate_limited until the minute ends",
  options: { "per-minute": { type: "string" }, default: { type: "boolean" } },
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const { schemas, actor } = await services();
    const quotas = await import("../services/api-quota");
    const { requestQuotaSchema } = await import("../schemas/rate-limits");
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
};

export const appsChangesApprove: Command = {
  usage: `apps changes approve CLIENT_ID ${EXPECT_REVISION_USAGE} [--json]`,
  summary: "Approve the change waiting on an approved app: new tokens and consents include what it adds",
  options: EXPECT_REVISION,
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const { apps, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const revision = await reviewedRevision(clientId, values);
    const app = await apps.approvePendingChange(clientId, actor, { revision });
    return {
      json: { ...appJson(app), reviewed_revision: revision },
      text: `Changes approved: ${statusLine(app)} (revision ${revision})`,
    };
  },
};

export const appsChangesReject: Command = {
  usage: `apps changes reject CLIENT_ID --reason R ${EXPECT_REVISION_USAGE} [--json]`,
  summary: "Refuse the change waiting on an app, with a reason its team sees; the approved configuration stays",
  options: { reason: { type: "string" }, ...EXPECT_REVISION },
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const { apps, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    if (values.reason === undefined) throw new UsageError("--reason is required (the team sees it)");
    const { reason } = parseWith(schemas.rejectAppSchema, { reason: values.reason }, { reason: "--reason" });
    const revision = await reviewedRevision(clientId, values);
    const app = await apps.rejectPendingChange(clientId, reason, actor, { revision });
    return {
      json: { ...appJson(app), reviewed_revision: revision },
      text: `Changes refused: ${statusLine(app)} (revision ${revision})`,
    };
  },
};

const TRANSFER_TEXT = {
  awaiting_acceptance: (to: string) => `offered to @${to}: nothing changes until they accept it in the portal (My apps)`,
  awaiting_review: (to: string) => `accepted by @${to}: the change of owner waits for review (apps changes approve|reject)`,
  applied: (to: string) => `now belongs to @${to}; the previous owner stays on the team as an admin`,
  declined: (to: string) => `declined by @${to}`,
} as const;

export const appsTransfer: Command = {
  usage: "apps transfer CLIENT_ID HANDLE [--accepted] [--json]",
  summary:
    "Offer the app to another person, who accepts it in the portal (--accepted: they agreed elsewhere); an approved app's new owner then waits for review",
  options: { accepted: { type: "boolean" } },
  positionals: ["CLIENT_ID", "HANDLE"],
  async run({ values, args }) {
    const { members, schemas, userSchemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const handle = parseWith(userSchemas.handleSchema, args[1], { "": "HANDLE" });
    const { outcome } = await members.requestTransfer(clientId, handle, actor, { accepted: values.accepted === true });
    return {
      json: { client_id: clientId, transfer: outcome, to: handle },
      text: `${clientId} ${TRANSFER_TEXT[outcome](handle)}`,
    };
  },
};
