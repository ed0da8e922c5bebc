import { INTERNAL_ERROR_MESSAGE } from "../http/reply";
import { ZodError } from "zod";
import { AppError, isAppError } from "../errors";
import { logger } from "../logger";
import { jsonReply, type ApiReply } from "./request-reply";

/**
 * The one place an error becomes a response (STYLE: Errors): AppError → its code, status, extra
 * members and headers; ZodError → 400 invalid_request naming the first bad field; anything else →
 * 500 internal_error with a fixed message, the cause only in the log under the request id.
 */
export interface RequestInfo {
  requestId: string;
  method: string;
  path: string;
}

const INTERNAL_MESSAGE = INTERNAL_ERROR_MESSAGE;

export function errorReply(
  status: number,
  error: { code: string; message: string } & Record<string, unknown>,
  headers: Record<string, string> = {},
  requestId?: string,
): ApiReply {
  const reply = jsonReply(status, { error }, requestId, headers);
  reply.errorCode = error.code;
  reply.errorMessage = error.message;
  return reply;
}

function describePath(path: PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, "");
}

/** `ZodError` raised while parsing `where` ("query", "body", "path"). */
export class InputError extends Error {
  constructor(
    readonly where: "query parameter" | "request body" | "path parameter",
    readonly zodError: ZodError,
  ) {
    super(zodError.message);
  }
}

function zodMessage(where: string, error: ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `Invalid ${where}.`;
  const field = describePath(issue.path);
  if (!field) return `Invalid ${where}: ${issue.message}.`;
  return `Invalid ${where} \`${field}\`: ${issue.message}.`;
}

export function toErrorReply(error: unknown, info: RequestInfo): ApiReply {
  if (error instanceof InputError) {
    return errorReply(400, { code: "invalid_request", message: zodMessage(error.where, error.zodError) }, {}, info.requestId);
  }
  if (error instanceof ZodError) {
    return errorReply(400, { code: "invalid_request", message: zodMessage("request", error) }, {}, info.requestId);
  }
  if (isAppError(error)) {
    const appError = error as AppError;
    if (appError.status >= 500) {
      logger.error("api request failed", { ...info, code: appError.code, error: describeCause(appError.cause ?? appError) });
      return errorReply(appError.status, { code: appError.code, message: INTERNAL_MESSAGE }, appError.headers, info.requestId);
    }
    return errorReply(
      appError.status,
      { code: appError.code, message: appError.message, ...appError.extra },
      appError.headers,
      info.requestId,
    );
  }
  logger.error("api request failed", { ...info, error: describeCause(error) });
  return errorReply(500, { code: "internal_error", message: INTERNAL_MESSAGE }, {}, info.requestId);
}

function describeCause(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const pg = error as Error & { code?: string };
    return { name: error.name, message: error.message, ...(pg.code ? { sqlState: pg.code } : {}), stack: error.stack };
  }
  return { message: String(error) };
}
