import { env } from "../env";

/**
 * The two rules of the wire that the API's serializers (lib/api/serialize) and the CLI's `--json`
 * views (lib/cli/json.ts) share, so both answer the same way.
 */

/** SPEC: every `*_at` is an integer in Unix seconds. */
export function dateToUnixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/**
 * Stored media and avatar URLs may be site-relative (`/avatars/alice.svg`); SPEC types them as URLs
 * and clients live on other origins, so the API (and the CLI) answer with absolute URLs on APP_URL.
 */
export function publicUrl(value: string): string {
  return value.startsWith("/") && !value.startsWith("//") ? `${env().APP_URL}${value}` : value;
}
