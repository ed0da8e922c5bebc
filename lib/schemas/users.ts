import { z } from "zod";
import { isStorableText } from "./api";

/** User inputs and views shared by the admin area, the CLI and the sign-in service. */

export const HANDLE_PATTERN = /^[a-z0-9_]{2,30}$/;

/** Handles are case-insensitive on input and stored lower-case (SPEC usernames are exact lookups). */
export const handleSchema = z
  .string()
  .trim()
  .transform((v) => v.replace(/^@/, "").toLowerCase())
  .pipe(z.string().regex(HANDLE_PATTERN, "must be 2–30 characters of a–z, 0–9 and _"));

export const passwordSchema = z
  .string()
  .min(8, "must be at least 8 characters")
  .max(256, "must be at most 256 characters");

export const createUserSchema = z.object({
  handle: handleSchema,
  password: passwordSchema,
  admin: z.boolean().default(false),
  displayName: z.string().trim().min(1).max(80).optional(),
});
export type CreateUserInput = z.infer<typeof createUserSchema>;

export const userRoleSchema = z.enum(["user", "admin"]);

/** A user as the admin area and CLI see them. Never carries the password hash. */
export const userViewSchema = z.object({
  id: z.number().int(),
  handle: z.string(),
  displayName: z.string(),
  role: userRoleSchema,
  disabled: z.boolean(),
  muted: z.boolean(),
  directoryVisible: z.boolean(),
  avatarUrl: z.string(),
  createdAt: z.date(),
});
export type UserView = z.infer<typeof userViewSchema>;

export const userPageSchema = z.object({ users: z.array(userViewSchema), nextCursor: z.string().nullable() });
export type UserPage = z.infer<typeof userPageSchema>;

/** Why an admin disables (or enables) an account: kept in the audit log. */
export const userStatusReasonSchema = z
  .string()
  .trim()
  .min(3, "Give a reason (at least 3 characters)")
  .max(500, "At most 500 characters")
  .refine(isStorableText, "Contains characters that are not allowed");

export const disableUserSchema = z.object({ reason: userStatusReasonSchema });

/** Enabling confirms too; a note is optional. */
export const enableUserSchema = z.object({ reason: userStatusReasonSchema.optional().or(z.literal("").transform(() => undefined)) });
