import { z } from "zod";

/**
 * Issue 26: every app's sandbox. The world is a column (User.worldId, ChatMessage.worldId,
 * DirectoryLink.worldId), like Stripe's livemode: 0 is the live world, a sandbox's world is its
 * Sandbox.id. A request's world comes from its token's client: `sbx_…` → that sandbox, else live.
 */
export const LIVE_WORLD_ID = 0;

/** A sandbox's client id is this prefix + its app's client id. */
export const SANDBOX_CLIENT_PREFIX = "sbx_";

/** Requests per minute a sandbox may make unless set otherwise (its own quota, apart from the live app's). */
export const DEFAULT_SANDBOX_QUOTA_PER_MINUTE = 600;

export function isSandboxClientId(clientId: string): boolean {
  return clientId.startsWith(SANDBOX_CLIENT_PREFIX);
}

export function sandboxClientId(appClientId: string): string {
  return SANDBOX_CLIENT_PREFIX + appClientId;
}

/** The access-token claim that marks a sandbox token (documented in docs; SPEC's shapes are unchanged). */
export const SANDBOX_CLAIM = "sandbox";

/** `apps sandbox show --json` (issue 26 CLI list). Test users come with a later increment. */
export const sandboxViewSchema = z.object({
  client_id: z.string(),
  users: z.array(z.object({ handle: z.string() })),
  quota_per_minute: z.number().int(),
  created_at: z.string(),
  generated_at: z.string().nullable(),
});
export type SandboxView = z.infer<typeof sandboxViewSchema>;

/** A sandbox secret, shown once (API clients, at creation and on roll). */
export const sandboxSecretSchema = z.object({ client_id: z.string(), client_secret: z.string() });
export type SandboxSecret = z.infer<typeof sandboxSecretSchema>;
