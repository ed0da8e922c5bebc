import { NextResponse } from "next/server";
import { env } from "@/lib/env";
import { isSameOriginRequest } from "@/lib/http/same-origin";
import { endPortalSession } from "@/lib/portal/sign-out";

/**
 * POST /signout, the portal's "Sign out" form. A route handler, not a server action: a server
 * action's redirect to the issuer (same origin, but served by the sign-in service, not Next) is
 * followed by Next itself, server-side, whenever it can reach its own port, and the browser then
 * never receives the logout page's cookie. A 303 from here goes to the browser as it is.
 */
export async function POST(request: Request): Promise<Response> {
  // A cross-site form must not sign people out (the same rule as the hosted pages' form posts).
  if (!isSameOriginRequest(request.headers, new Set([new URL(env().APP_URL).origin]))) {
    return NextResponse.json({ error: { code: "forbidden", message: "Cross-site sign-out refused." } }, { status: 403 });
  }
  return NextResponse.redirect(await endPortalSession(), 303);
}
