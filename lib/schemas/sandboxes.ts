import { z } from "zod";
import { handleSchema } from "./users";

/**
 * Every app's sandbox. The world is a column (User.worldId, ChatMessage.worldId,
 * DirectoryLink.worldId), like Stripe's livemode: 0 is the live world, a sandbox's world is its
 * Sandbox.id. A request's world comes from its token's client: `sbx_…` → that sandbox, else live.
 */
export const LIVE_WORLD_ID = 0;

/** A sandbox's client id is this prefix + its app's client id. */
export const SANDBOX_CLIENT_PREFIX = "sbx_";

export function isSandboxClientId(clientId: string): boolean {
  return clientId.startsWith(SANDBOX_CLIENT_PREFIX);
}

export function sandboxClientId(appClientId: string): string {
  return SANDBOX_CLIENT_PREFIX + appClientId;
}

/**
 * Which world a client speaks for: its app's live client, or the app's sandbox (`sbx_` client).
 * The same app is live in one and not in the other: a pending app's sandbox works before review.
 */
export type AppWorld = "live" | "sandbox";

/**
 * "This app is live in this world" (STYLE.md, Surfaces share the rules): its live client only while
 * approved; its sandbox whatever its review status, except suspended (the sandbox is where an app is
 * built before review). `status` null or undefined: the app is gone. Sign-in, token checks, the
 * token fast paths and webhook delivery all ask this, in TypeScript here or in SQL through
 * appLiveSql, which says the same (tests/sandbox/app-live.test.ts runs both over every status).
 */
export function isAppLiveIn(status: string | null | undefined, world: AppWorld): boolean {
  if (status == null) return false;
  return world === "live" ? status === "approved" : status !== "suspended";
}

/**
 * isAppLiveIn as a SQL condition on `status`, an expression of type "AppStatus" (e.g. `a.status`).
 * It expands to the plain comparison the hot paths have always run, so their statement text, plan
 * and indexes stay as they were; a NULL status (no app row) is not true, as isAppLiveIn's null.
 */
export function appLiveSql(status: string, world: AppWorld): string {
  return world === "live" ? `${status} = 'approved'` : `${status} <> 'suspended'`;
}

/** The access-token claim that marks a sandbox token (documented in docs; SPEC's shapes are unchanged). */
export const SANDBOX_CLAIM = "sandbox";

/** An app's sandbox as the services return it (`apps sandbox show`; the CLI's JSON is lib/cli/json.ts). */
export interface SandboxView {
  clientId: string;
  /** Its test users, oldest first (lib/services/sandbox-users.ts). */
  users: { handle: string }[];
  quotaPerMinute: number;
  createdAt: Date;
  /** When its synthetic world was last built; null until its first use. */
  generatedAt: Date | null;
}

/** A sandbox secret, shown once (API clients, at creation and on roll). */
export interface SandboxSecret {
  clientId: string;
  clientSecret: string;
}

/** At most this many test users per sandbox. */
export const SANDBOX_TEST_USER_LIMIT = 20;

/** Adding a test user: the handle is a real handle's (same rules), generated when absent. */
export const addSandboxTestUserSchema = z.object({ handle: handleSchema.optional() });
export type AddSandboxTestUserInput = z.input<typeof addSandboxTestUserSchema>;

/** A sandbox's test user as the portal and the CLI list them (never its password, which is shown once). */
export interface SandboxTestUser {
  handle: string;
  createdAt: Date;
}

/** A new test user's credentials: the password is shown once and stored only as a hash. */
export interface SandboxTestUserCredentials {
  handle: string;
  password: string;
}
