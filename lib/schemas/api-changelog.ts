import { z } from "zod";

/**
 * The API changelog, one committed file (docs/api-changelog.json) that the portal's
 * changelog page renders and the OpenAPI compatibility check (scripts/openapi-snapshot.ts) reads:
 * a breaking change of the OpenAPI document passes only when an entry records its location.
 */
const breakingChangeSchema = z.object({
  /**
   * Where in the OpenAPI document, as the check names it (`paths./users/{username}.get…`, api-smart-diff's path joined by dots); a
   * recorded location covers every breaking difference at or below it.
   */
  location: z.string().min(1),
  description: z.string().min(1),
  /** When the `Deprecation` header started announcing it (RFC 9745), ISO date. */
  deprecated: z.iso.date(),
  /** The `Sunset` date (RFC 8594): at least 6 months after `deprecated`. */
  sunset: z.iso.date(),
});

const changelogEntrySchema = z.object({
  date: z.iso.date(),
  title: z.string().min(1),
  changes: z.array(z.string().min(1)),
  breaking: z.array(breakingChangeSchema),
});

export const apiChangelogSchema = z.object({ entries: z.array(changelogEntrySchema) });

export type BreakingChange = z.infer<typeof breakingChangeSchema>;
