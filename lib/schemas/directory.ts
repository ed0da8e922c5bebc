import { z } from "zod";
import { cappedLimitParam, isStorableText } from "./api";

/** The user directory (SPEC.md "Directory identity", POST /directory/resolve, GET /users). */
export const IDENTIFIER_TYPES = ["handle", "x_handle", "codehost", "chatapp"] as const;
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number];
export const RESOLVE_MAX_IDENTIFIERS = 50;
export const IDENTIFIER_MAX_LENGTH = 256;
export const USERS_DEFAULT_LIMIT = 25;
export const USERS_MAX_LIMIT = 100;

export const directoryIdentitySchema = z
  .object({
    handle: z.string(),
    display_name: z.string(),
    avatar_url: z.string().meta({ description: "URL of the avatar" }),
    avatar_url_small: z.string().meta({ description: "URL of a small avatar (thumbnails, lists)" }),
  })
  .meta({ id: "DirectoryIdentity" });
export type DirectoryIdentityView = z.infer<typeof directoryIdentitySchema>;

export const identifierSchema = z
  .object({
    type: z.enum(IDENTIFIER_TYPES),
    value: z
      .string()
      .min(1, "must not be empty")
      .max(IDENTIFIER_MAX_LENGTH, `must be at most ${IDENTIFIER_MAX_LENGTH} characters`)
      .refine(isStorableText, "must be valid Unicode text without NUL characters")
      .meta({ description: "Matched case-insensitively; a leading @ is ignored." }),
  })
  .meta({ id: "Identifier" });
export type Identifier = z.infer<typeof identifierSchema>;

export const resolveBodySchema = z
  .object({
    identifiers: z
      .array(identifierSchema)
      .min(1, "must hold at least one identifier")
      .max(RESOLVE_MAX_IDENTIFIERS, `must hold at most ${RESOLVE_MAX_IDENTIFIERS} identifiers`),
  })
  .meta({ id: "ResolveRequest" });

export const resolveResultSchema = z
  .object({
    results: z
      .array(
        z
          .object({
            query: identifierSchema.meta({ description: "The identifier as sent" }),
            identity: directoryIdentitySchema.nullable().meta({ description: "null when nobody in the directory matches" }),
          })
          .meta({ id: "ResolveResult" }),
      )
      .meta({ description: "One per identifier, in request order" }),
  })
  .meta({ id: "ResolveResponse" });

export const listUsersQuerySchema = z.object({
  limit: cappedLimitParam({ fallback: USERS_DEFAULT_LIMIT, cap: USERS_MAX_LIMIT }),
  cursor: z
    .string()
    .optional()
    .meta({ description: "Opaque; omit for the first page, then pass `next_cursor` back verbatim. A malformed cursor is 400 invalid_request." }),
});

export const userPageSchema = z
  .object({
    users: z.array(directoryIdentitySchema),
    next_cursor: z.string().nullable().meta({ description: "null on the final page" }),
  })
  .meta({ id: "UserPage" });
