import { z } from "zod";
import { env } from "../env";
import { outboundGet } from "../events/deliver-http";

/**
 * Public key sets (JWK Sets) that clients sign with: an AI agent's jwks_uri (lib/oidc/agents.ts) and
 * an app's private_key_jwt keys, fetched or pasted (lib/services/app-keys.ts). One rule for both: 1
 * to 10 RSA, EC or OKP keys, none private; fetched with a GET under the webhooks' outbound rules (the
 * private addresses of CLIENT_METADATA_ALLOW_PRIVATE only), 16 KiB at most, no redirect followed.
 */

export const KEY_SET_MAX_BYTES = 16 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
const PRIVATE_KEY_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"];
const keySetSchema = z.object({
  keys: z
    .array(z.looseObject({ kty: z.enum(["RSA", "EC", "OKP"]), use: z.literal("sig").optional(), kid: z.string().max(200).optional() }))
    .min(1, "holds no key")
    .max(10, "holds more than 10 keys"),
});
export type PublicJwk = z.infer<typeof keySetSchema>["keys"][number];

/**
 * Why `value` is not a set of public signing keys, in words that follow "The key set …", or null
 * when it is one.
 */
export function publicKeySetProblem(value: unknown): string | null {
  const parsed = keySetSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `is not a JWK Set: ${issue.path.join(".") || "the document"} ${issue.message}.`;
  }
  const index = parsed.data.keys.findIndex((key) => PRIVATE_KEY_MEMBERS.some((member) => member in key));
  if (index >= 0) {
    return `includes a private key (key ${index + 1}): publish or paste the public keys only. Keep the private key with your app, and as it was shared, make a new key pair.`;
  }
  return null;
}

/**
 * The keys at `url`, or why not (`fail` builds the error each caller throws: the message names
 * `whose` key set).
 */
export async function fetchPublicKeySet(url: string, whose: string, fail: (message: string) => Error): Promise<PublicJwk[]> {
  const at = `${whose} key set at ${url}`;
  const answer = await outboundGet(url, {
    allowPrivate: env().CLIENT_METADATA_ALLOW_PRIVATE,
    maxBytes: KEY_SET_MAX_BYTES,
    timeoutMs: FETCH_TIMEOUT_MS,
    headers: { accept: "application/json" },
    noun: `${whose} jwks_uri`,
  });
  if (answer.error === "too_large") throw fail(`${at} is larger than ${KEY_SET_MAX_BYTES / 1024} KiB.`);
  if (answer.error) throw fail(answer.message ?? `${at} could not be fetched (${answer.error}).`);
  if (answer.statusCode !== null && answer.statusCode >= 300 && answer.statusCode < 400) {
    throw fail(`${at} answered a redirect (${answer.statusCode}); the platform follows none: serve it at that very URL.`);
  }
  if (answer.statusCode !== 200) throw fail(`${at} answered ${answer.statusCode} instead of 200.`);
  let value: unknown;
  try {
    value = JSON.parse(answer.body.toString("utf8"));
  } catch {
    throw fail(`${at} is not JSON.`);
  }
  const problem = publicKeySetProblem(value);
  if (problem) throw fail(`${at} ${problem}`);
  return (value as { keys: PublicJwk[] }).keys;
}

/** An app's stored private_key_jwt keys (Application.jwks), or null. */
export function storedAppKeys(jwks: unknown): PublicJwk[] | null {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) && keys.length ? (keys as PublicJwk[]) : null;
}
