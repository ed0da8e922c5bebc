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
