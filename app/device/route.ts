import { NextResponse } from "next/server";
import { z } from "zod";
import { env } from "@/lib/env";

/** A user code as a device may print it in a short link: letters, digits, a dash. */
const userCodeSchema = z.string().trim().min(1).max(32).regex(/^[A-Za-z0-9-]+$/);

/**
 * GET /device: a short address to type on a phone. The verification page itself is the
 * sign-in service's, `{issuer}/device` (RFC 8628 verification_uri); a `user_code` comes along.
 */
export function GET(request: Request): Response {
  const target = new URL(`${env().ISSUER}/device`);
  const code = userCodeSchema.safeParse(new URL(request.url).searchParams.get("user_code") ?? undefined);
  if (code.success) target.searchParams.set("user_code", code.data);
  return NextResponse.redirect(target, 303);
}
