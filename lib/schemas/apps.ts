import { z } from "zod";
import { SVC_SCOPE_NAMES, USER_ONLY_SCOPES, type SvcScope } from "../scopes";
import { isStorableText } from "./api";

/**
 * Application inputs and views, shared by the portal form (react-hook-form + zodResolver), its
 * server actions, the admin area and the CLI. Field names are camelCase (internal); the API's
 * snake_case wire shapes are built by serializers, not here.
 */

/** The kinds of app a developer registers. */
export const APP_TYPES = ["api", "login"] as const;
/**
 * Every kind of app there is: a developer's (APP_TYPES), and an AI agent's client, which no one
 * registers: it exists from its first authorization (issue 40, lib/oidc/agents.ts).
 */
export const APP_KINDS = [...APP_TYPES, "agent"] as const;
export const APP_STATUSES = ["pending", "approved", "rejected", "suspended"] as const;
export const MAX_REDIRECT_URIS = 10;

export const appTypeSchema = z.enum(APP_TYPES);
export const appKindSchema = z.enum(APP_KINDS);

/** A developer's app (not an agent's client): what the portal's forms, quickstarts and sandboxes are for. */
export function isDeveloperApp<T extends { type: (typeof APP_KINDS)[number] }>(app: T): app is T & { type: (typeof APP_TYPES)[number] } {
  return app.type !== "agent";
}
export const appStatusSchema = z.enum(APP_STATUSES);
export const svcScopeSchema = z.enum(SVC_SCOPE_NAMES as [SvcScope, ...SvcScope[]], {
  error: (issue) => `Unknown scope ${JSON.stringify(issue.input)} (known: ${SVC_SCOPE_NAMES.join(", ")})`,
});

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Why a redirect URI is unacceptable, or null. Redirects are matched verbatim by the sign-in service
 * (SPEC Login client step 1), so we only accept absolute URLs that are safe to send a code to:
 * https, or plain http for loopback development; never a fragment (RFC 6749 §3.1.2) or credentials.
 */
export function checkRedirectUri(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL (for example https://example.com/callback)";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must use https (or http on localhost)";
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) {
    return "must use https (plain http is only allowed for localhost and 127.0.0.1)";
  }
  if (value.includes("#")) return "must not contain a fragment (#…)";
  if (url.username || url.password) return "must not contain a user name or password";
  return null;
}

export const redirectUriSchema = z
  .string()
  .trim()
  .min(1, "Enter a URL")
  .max(2000, "must be at most 2000 characters")
  .superRefine((value, ctx) => {
    const problem = checkRedirectUri(value);
    if (problem) ctx.addIssue({ code: "custom", message: `${value}: ${problem}` });
  });

const redirectListSchema = z
  .array(redirectUriSchema)
  .max(MAX_REDIRECT_URIS, `At most ${MAX_REDIRECT_URIS} URIs`)
  // Duplicates are harmless but confusing in the portal; keep the first occurrence.
  .transform((list) => [...new Set(list)]);

/** PostgreSQL text cannot hold NUL (a 500 otherwise); lone surrogates are not text either. */
const storable = (schema: z.ZodString) => schema.refine(isStorableText, "Contains characters that are not allowed");
/** The longest name and description (the form's counters and maxLength use them too). */
export const APP_NAME_MAX = 80;
export const APP_DESCRIPTION_MAX = 500;
const nameSchema = storable(z.string().trim().min(1, "Enter a name").max(APP_NAME_MAX, `At most ${APP_NAME_MAX} characters`));
const descriptionSchema = storable(z.string().trim().max(APP_DESCRIPTION_MAX, `At most ${APP_DESCRIPTION_MAX} characters`));
const scopesSchema = z.array(svcScopeSchema).transform((list) => [...new Set(list)]);

/**
 * Why a link shown to people (homepage, privacy policy, terms: issue 15) is unacceptable, or null.
 * https only, even for localhost: the consent page sends people there.
 */
export function checkPublicLink(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL (for example https://example.com/privacy)";
  }
  if (url.protocol !== "https:") return "must use https://";
  if (url.username || url.password) return "must not contain a user name or password";
  return null;
}

/** An optional link: empty clears it (null). */
const publicLinkSchema = storable(z.string().trim().max(2000, "must be at most 2000 characters"))
  .superRefine((value, ctx) => {
    const problem = value === "" ? null : checkPublicLink(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .transform((value) => (value === "" ? null : value))
  .nullable();

/** Logos: PNG, JPEG or WebP, at most 256 KiB, 16 to 1024 px a side, at most twice as wide as high (or high as wide). */
export const MAX_LOGO_BYTES = 256 * 1024;
export const LOGO_MIN_SIDE = 16;
export const LOGO_MAX_SIDE = 1024;
export const LOGO_MAX_ASPECT = 2;
export const LOGO_RULES = "A PNG, JPEG or WebP image of at most 256 KiB, 16 to 1024 pixels a side, roughly square (at most 2:1).";
export const LOGO_TYPES = {
  png: "image/png",
  jpg: "image/jpeg",
  webp: "image/webp",
} as const;
export type LogoExtension = keyof typeof LOGO_TYPES;

/**
 * The image type by its first bytes (magic numbers), or null: PNG's 8-byte signature, JPEG's SOI
 * marker, WebP's RIFF…WEBP header. The file name and the browser's claimed type are never trusted.
 */
export function sniffLogoType(bytes: Uint8Array): LogoExtension | null {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (starts([0xff, 0xd8, 0xff])) return "jpg";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "webp";
  return null;
}

/**
 * Why bytes that are no PNG, JPEG or WebP are refused. A GIF is named (people try animated ones,
 * issue 24); anything else is "not an image", whatever its name says.
 */
export function unacceptedLogoMessage(bytes: Uint8Array): string {
  const isGif = bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x38;
  return isGif
    ? "The logo is a GIF; it must be a still PNG, JPEG or WebP image"
    : "The logo must be a PNG, JPEG or WebP image (this file is not one, whatever its name says)";
}

/**
 * A logo upload: its bytes (the services decode and check them), or null to remove the logo.
 * The size and magic bytes are checked here already, so a form says so before the upload.
 */
export const logoInputSchema = z
  .instanceof(Uint8Array, { message: "Choose an image file" })
  .superRefine((bytes, ctx) => {
    if (bytes.byteLength === 0) ctx.addIssue({ code: "custom", message: "The file is empty" });
    else if (bytes.byteLength > MAX_LOGO_BYTES) {
      ctx.addIssue({ code: "custom", message: `The logo is ${Math.ceil(bytes.byteLength / 1024)} KiB; at most 256 KiB` });
    } else if (!sniffLogoType(bytes)) {
      ctx.addIssue({ code: "custom", message: unacceptedLogoMessage(bytes) });
    }
  })
  .nullable();

/** What the identity block shows: the approved presentation of an app. */
export interface AppIdentityData {
  clientId: string;
  name: string;
  description: string;
  homepageUrl: string | null;
  privacyPolicyUrl: string | null;
  termsUrl: string | null;
  /** The logo's file name (`<hash>.<ext>`), served from our own origin; null: the initial-letter placeholder. */
  logo: string | null;
  owner: { handle: string; displayName: string } | null;
}

/**
 * Where a logo is served: the platform's own origin, the content hash in the file name. An AI
 * agent's client ID is a URL: one path segment, percent-encoded (a developer's app's is unchanged).
 */
export function logoPath(clientId: string, file: string): string {
  return `/media/logos/${encodeURIComponent(clientId)}/${file}`;
}

/**
 * The redirect rules that depend on the client type; shared by create (type in the input) and
 * update (type from the stored app). Returns field → message.
 */
export function checkRedirectsForType(
  type: (typeof APP_TYPES)[number],
  redirectUris: readonly string[],
  postLogoutRedirectUris: readonly string[],
): Record<string, string> {
  const problems: Record<string, string> = {};
  if (type === "login" && redirectUris.length === 0) {
    problems.redirectUris = "A login client needs at least one redirect URI";
  }
  if (type === "api") {
    if (redirectUris.length > 0) problems.redirectUris = "An API client has no redirect URIs";
    if (postLogoutRedirectUris.length > 0) {
      problems.postLogoutRedirectUris = "An API client has no post-logout redirect URIs";
    }
  }
  return problems;
}

/**
 * The scope rule that depends on the client type: an API client acts as itself, so scopes that need
 * a signed-in person are refused (its tokens could never carry them). The portal form greys them
 * out; this is the rule behind it, for the form, its server actions, the services and the CLI alike
 * (create: `createAppSchema`; update: the service, which knows the stored type). Field → message.
 */
export function checkScopesForType(type: (typeof APP_TYPES)[number], scopes: readonly string[]): Record<string, string> {
  if (type !== "api") return {};
  const userOnly = scopes.filter((s) => (USER_ONLY_SCOPES as readonly string[]).includes(s));
  if (userOnly.length === 0) return {};
  const one = userOnly.length === 1;
  return {
    scopes: `An API client cannot use ${userOnly.join(", ")}: ${one ? "it needs" : "they need"} a signed-in person (login clients only)`,
  };
}

/**
 * The device-flow rule that depends on the client type: only a login client signs a
 * person in, so only it may use the device authorization grant. Field → message.
 */
export function checkDeviceFlowForType(type: (typeof APP_TYPES)[number], deviceFlow: boolean | undefined): Record<string, string> {
  return type === "api" && deviceFlow ? { deviceFlow: "An API client cannot use device sign-in (login clients only)" } : {};
}

/** Only a login client sends people to the authorization endpoint: only it can require PAR. */
export function checkParForType(type: (typeof APP_TYPES)[number], requirePar: boolean | undefined): Record<string, string> {
  return type === "api" && requirePar ? { requirePar: "An API client has no sign-in to push (login clients only)" } : {};
}

export const createAppSchema = z
  .object({
    name: nameSchema,
    description: descriptionSchema.default(""),
    type: appTypeSchema,
    /** May be empty: a login client that only needs `openid`/`profile`. */
    scopes: scopesSchema.default([]),
    redirectUris: redirectListSchema.default([]),
    postLogoutRedirectUris: redirectListSchema.default([]),
    homepageUrl: publicLinkSchema.optional(),
    privacyPolicyUrl: publicLinkSchema.optional(),
    termsUrl: publicLinkSchema.optional(),
    /** Bytes of a logo to upload; absent: none. */
    logo: logoInputSchema.optional(),
    /** Allow device sign-in (RFC 8628 device authorization grant; login clients only). */
    deviceFlow: z.boolean().optional(),
    /** Refuse authorization requests that were not pushed first (PAR, RFC 9126; login clients only). */
    requirePar: z.boolean().optional(),
    /** Bind every token to a key the app holds (DPoP, RFC 9449; API and login clients). */
    requireDpop: z.boolean().optional(),
  })
  .superRefine((input, ctx) => {
    const problems = {
      ...checkScopesForType(input.type, input.scopes),
      ...checkDeviceFlowForType(input.type, input.deviceFlow),
      ...checkParForType(input.type, input.requirePar),
      ...checkRedirectsForType(input.type, input.redirectUris, input.postLogoutRedirectUris),
    };
    for (const [field, message] of Object.entries(problems)) ctx.addIssue({ code: "custom", path: [field], message });
  });

export type CreateAppInput = z.infer<typeof createAppSchema>;

/** Everything but the type can change; the type-dependent redirect rules are checked by the service. */
export const updateAppSchema = z.object({
  name: nameSchema.optional(),
  description: descriptionSchema.optional(),
  scopes: scopesSchema.optional(),
  redirectUris: redirectListSchema.optional(),
  postLogoutRedirectUris: redirectListSchema.optional(),
  homepageUrl: publicLinkSchema.optional(),
  privacyPolicyUrl: publicLinkSchema.optional(),
  termsUrl: publicLinkSchema.optional(),
  /** New logo bytes, null to remove the logo, absent to keep it. */
  logo: logoInputSchema.optional(),
  deviceFlow: z.boolean().optional(),
  requirePar: z.boolean().optional(),
  requireDpop: z.boolean().optional(),
});
export type UpdateAppInput = z.infer<typeof updateAppSchema>;

/**
 * A widening change of an approved app, waiting for review: the requested values of the
 * fields it changes (a list is the whole requested list), who asked and when.
 */
export const pendingChangeSchema = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  redirectUris: z.array(z.string()).optional(),
  postLogoutRedirectUris: z.array(z.string()).optional(),
  homepageUrl: z.string().nullable().optional(),
  privacyPolicyUrl: z.string().nullable().optional(),
  termsUrl: z.string().nullable().optional(),
  /** The requested logo's file name (its bytes wait in AppLogo), or null to remove the logo. */
  logo: z.string().nullable().optional(),
  /** Only ever `true`: turning device sign-in off applies at once. */
  deviceFlow: z.boolean().optional(),
  /**
   * A new owner who accepted a transfer of an approved app: who people see "built by"
   * on the consent page is identity, so it waits for review like a name.
   */
  owner: z.object({ id: z.number().int(), handle: z.string() }).optional(),
  requestedAt: z.coerce.date(),
  requestedBy: z.string(),
});
export type PendingChange = z.infer<typeof pendingChangeSchema>;
/** The fields a change can touch, in the order the diff shows them. */
export const CHANGE_FIELDS = [
  "name",
  "logo",
  "description",
  "homepageUrl",
  "privacyPolicyUrl",
  "termsUrl",
  "scopes",
  "redirectUris",
  "postLogoutRedirectUris",
  "deviceFlow",
] as const;
export type ChangeField = (typeof CHANGE_FIELDS)[number];

const reasonSchema = storable(z.string().trim().min(1, "Give a reason").max(500, "At most 500 characters"));

export const rejectAppSchema = z.object({ reason: reasonSchema });

/**
 * The revision of an app a reviewer looked at: approvals and rejections carry it, and
 * are refused if the app changed since.
 */
export const revisionSchema = z.number().int().positive().max(2_147_483_647);
/** A rejection as the admin pages send it: the reason and the revision rendered. */
export const reviewRejectionSchema = rejectAppSchema.extend({ revision: revisionSchema });

export const suspendAppSchema = z.object({ reason: reasonSchema });

/** The admin queue's URL: every filter survives a reload and a shared link; junk is ignored. */
export const appQueueQuerySchema = z.object({
  q: z.string().trim().max(100).optional().catch(undefined),
  status: z.union([appStatusSchema, z.literal("all")]).optional().catch(undefined),
  type: appKindSchema.optional().catch(undefined),
  resubmitted: z.literal("1").optional().catch(undefined),
  /** Only approved apps with a change waiting for review. */
  changes: z.literal("1").optional().catch(undefined),
  cursor: z.string().max(200).optional().catch(undefined),
});
export type AppQueueQuery = z.infer<typeof appQueueQuerySchema>;

/**
 * An app's jwks_uri (private_key_jwt, lib/services/app-keys.ts): an absolute http(s) URL of at most
 * 2,048 characters; where it may point (public https only, unless CLIENT_METADATA_ALLOW_PRIVATE) is
 * checked when it is fetched, by the agents' outbound rules.
 */
export const jwksUriSchema = z
  .string()
  .trim()
  .max(2048, "must be at most 2,048 characters")
  .refine((value) => URL.canParse(value) && ["https:", "http:"].includes(new URL(value).protocol), "must be an https URL");

/** The app page's Keys form: a jwks_uri, or a pasted JWK Set (checked by lib/services/app-keys.ts). */
export const appKeysInputSchema = z.union([
  z.object({ jwksUri: jwksUriSchema }),
  z.object({ jwks: z.string().trim().min(1, "paste a JWK Set").max(16 * 1024, "must be at most 16 KiB") }),
]);

export const clientIdSchema = z
  .string()
  .trim()
  .min(1, "Give a client id")
  .max(100)
  .regex(/^[A-Za-z0-9_-]+$/, "is not a client id");

/**
 * An AI agent's client ID: the http(s) URL of its metadata document (lib/oidc/agents.ts checks it
 * whole), or the `agt_…` one dynamic registration gave it (lib/oidc/registration.ts).
 */
export const agentClientIdSchema = z
  .string()
  .trim()
  .max(2048)
  .regex(/^(https?:\/\/[\x21-\x7e]+|agt_[A-Za-z0-9_-]{1,100})$/, "is not an agent's client id (the https URL of its metadata document, or agt_…)");

/** Any app's client ID: a developer's app's, or an AI agent's URL (the CLI's show, suspend, approve). */
export const anyClientIdSchema = z.union([clientIdSchema, agentClientIdSchema], { error: "is not a client id" });

/** One of an API client's active secrets, as the owner and admins see it. */
export const secretViewSchema = z.object({
  /** `sec_…`: names the secret in the portal, the CLI and the audit log. */
  id: z.string(),
  /** Last four characters, so the owner can tell secrets apart. */
  hint: z.string(),
  createdAt: z.date(),
  /** Last successful token request with it (updated at most once a minute); null if never used. */
  lastUsedAt: z.date().nullable(),
});
export type SecretView = z.infer<typeof secretViewSchema>;

/** An application as the portal, admin area and CLI see it. Never carries a secret or its hash. */
/** A role on an app's team; "owner" is the one owner, the others are member rows. */
export const appRoleSchema = z.enum(["owner", "admin", "viewer"]);
export type AppRole = z.infer<typeof appRoleSchema>;
export const memberRoleSchema = z.enum(["admin", "viewer"]);
export type MemberRole = z.infer<typeof memberRoleSchema>;

export const appMemberSchema = z.object({
  id: z.number().int(),
  handle: z.string(),
  displayName: z.string(),
  role: memberRoleSchema,
  addedAt: z.date(),
});
export type AppMember = z.infer<typeof appMemberSchema>;

export const appViewSchema = z.object({
  clientId: z.string(),
  name: z.string(),
  description: z.string(),
  type: appKindSchema,
  status: appStatusSchema,
  /** Why it was rejected or suspended; null otherwise. */
  statusReason: z.string().nullable(),
  scopes: z.array(z.string()),
  redirectUris: z.array(z.string()),
  postLogoutRedirectUris: z.array(z.string()),
  homepageUrl: z.string().nullable(),
  privacyPolicyUrl: z.string().nullable(),
  termsUrl: z.string().nullable(),
  /** The approved logo's file name (`<hash>.<ext>`), or null; served at logoPath(clientId, logo). */
  logo: z.string().nullable(),
  /** May use the device authorization grant (approved configuration; a pending enable is in pendingChange). */
  deviceFlow: z.boolean(),
  /** Login clients: authorization requests must be pushed first (PAR, RFC 9126). */
  requirePar: z.boolean(),
  /** API and login clients: every token is bound to a key the app holds (DPoP, RFC 9449). */
  requireDpop: z.boolean(),
  firstParty: z.boolean(),
  owner: z.object({ id: z.number().int(), handle: z.string(), displayName: z.string() }),
  /** A widening change waiting for review; the fields above are the approved ones. */
  pendingChange: pendingChangeSchema.nullable(),
  /** Moves with every stored change a reviewer sees; decisions name the one they looked at. */
  revision: z.number().int(),
  /** A transfer offered to this person, waiting for them to accept or decline. */
  transferTo: z.object({ id: z.number().int(), handle: z.string(), displayName: z.string() }).nullable(),
  transferRequestedAt: z.date().nullable(),
  /** Why the last change request was refused (shown to the team until the next request). */
  pendingChangeRejection: z.string().nullable(),
  /** The team besides the owner, longest-standing first. */
  members: z.array(appMemberSchema),
  /** API requests per minute this app may make (the admin's setting, or the default). */
  requestsPerMinute: z.number().int(),
  /** Whether an admin set the quota (false: the platform default applies). */
  customQuota: z.boolean(),
  /**
   * private_key_jwt (RFC 7523): the app's public keys (kid, type, algorithm; never more), and the
   * jwks_uri they come from (null: pasted). Null: the app uses a secret (API) or none (login).
   */
  clientKeys: z
    .object({
      jwksUri: z.string().nullable(),
      keys: z.array(z.object({ kid: z.string().nullable(), kty: z.string(), alg: z.string().nullable() })),
      updatedAt: z.date().nullable(),
    })
    .nullable(),
  /** True once a secret was revealed (API clients only). */
  hasSecret: z.boolean(),
  /** The API client's active secrets (at most two), oldest first; never a value or a hash. */
  secrets: z.array(secretViewSchema),
  reviewedAt: z.date().nullable(),
  /** When the owner sent it back to review after a rejection; null once reviewed again. */
  resubmittedAt: z.date().nullable(),
  /** The rejection reason a resubmission answers (shown to the admin in the queue). */
  previousRejectionReason: z.string().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type AppView = z.infer<typeof appViewSchema>;
/** A developer's app as the portal's app pages show it (agents' clients are the admin area's). */
export type DeveloperAppView = AppView & { type: (typeof APP_TYPES)[number] };

export const appPageSchema = z.object({
  apps: z.array(appViewSchema),
  /** Opaque; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type AppPage = z.infer<typeof appPageSchema>;


export const secretIdSchema = z
  .string()
  .trim()
  .regex(/^sec_[A-Za-z0-9]{1,40}$/, "is not a secret id (sec_…)");

/** The one-time secret handed to the owner (first reveal after approval, add, or roll). */
export const revealedSecretSchema = z.object({
  clientId: z.string(),
  /** The new secret's id (`sec_…`). */
  secretId: z.string(),
  clientSecret: z.string(),
  secretHint: z.string(),
});
export type RevealedSecret = z.infer<typeof revealedSecretSchema>;
