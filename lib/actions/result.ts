import { ZodError } from "zod";
import { isAppError, type ErrorCode } from "../errors";
import { logger } from "../logger";

/**
 * The one result shape of every portal server action (STYLE: Errors). Expected failures carry the
 * AppError's client-safe message; anything unexpected is logged and answered with a fixed message,
 * never the error's own text (which may hold SQL, paths or secrets).
 */
export type ActionError = { code: ErrorCode; message: string; fields?: Record<string, string> };
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: ActionError };

export function fieldsFromZod(error: ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? String(issue.path[0]) : "form";
    fields[key] ??= issue.message;
  }
  return fields;
}

export function toActionError(error: unknown, action: string): ActionError {
  if (error instanceof ZodError) {
    const fields = fieldsFromZod(error);
    return { code: "invalid_request", message: fields.form ?? "Check the highlighted fields.", fields };
  }
  if (isAppError(error)) {
    return { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}) };
  }
  // The log gets the detail (never a secret: actions do not put secrets into errors); the client does not.
  logger.error("server action failed", {
    action,
    error: error instanceof Error ? `${error.name}: ${error.message.slice(0, 300)}` : "unknown",
  });
  return { code: "internal_error", message: "Something went wrong on our side. Try again in a moment." };
}

/**
 * Runs an action body and turns what it throws into an `ActionResult`. Next's own control-flow
 * throws (redirect, notFound, forbidden) must pass through untouched.
 */
export async function runAction<T>(action: string, body: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await body() };
  } catch (error) {
    if (isNextControlFlow(error)) throw error;
    return { ok: false, error: toActionError(error, action) };
  }
}

function isNextControlFlow(error: unknown): boolean {
  const digest = (error as { digest?: unknown } | null)?.digest;
  return typeof digest === "string" && (digest.startsWith("NEXT_REDIRECT") || digest.startsWith("NEXT_HTTP_ERROR_FALLBACK"));
}
