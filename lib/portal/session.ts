import { getServerSession } from "next-auth";
import { decode } from "next-auth/jwt";
import { cookies, headers } from "next/headers";
import { forbidden, notFound, redirect } from "next/navigation";
import { cache } from "react";
import { getAuthOptions, sessionCookieNames } from "./auth";
import { AppError, isAppError } from "../errors";
import { CLIENT_IP_HEADER } from "../http/client-ip";
import { clientIdSchema, isDeveloperApp, type DeveloperAppView } from "../schemas/apps";
import type { UserView } from "../schemas/users";
import type { Actor } from "../services/actor";
import { getAppForViewer } from "../services/apps";
import { findUserById } from "../services/users";
import { isSecondFactorMissing } from "../services/mfa-policy";

/** Where REQUIRE_MFA sends a person who must enrol first. */
export const ENROL_PATH = "/account/security?required=1";

/**
 * Who is signed in to the portal, checked on the server (STYLE: Layout, lib/portal). The next-auth
 * cookie only says which user signed in; the role and the disabled flag are read from the database
 * on every request, so pages and server actions never trust anything the browser holds.
 */

/** The signed-in, enabled user, or null. Cached for the duration of one request. */
export const getCurrentUser = cache(async (): Promise<UserView | null> => {
  const session = await getServerSession(await getAuthOptions());
  const uid = session?.userId;
  if (!uid || !/^[0-9]{1,10}$/.test(uid)) return null;
  const user = await findUserById(Number(uid));
  // A disabled account loses the portal at once, even with a valid session cookie.
  if (!user || user.disabled) return null;
  return user;
});

/**
 * The uid of the sign-in session behind this portal session (Account security marks it
 * "This device" and keeps it on "Sign out everywhere else"), read from the encrypted session cookie.
 */
export const getCurrentSessionUid = cache(async (): Promise<string | null> => {
  const jar = await cookies();
  const { secret } = await getAuthOptions();
  for (const name of sessionCookieNames()) {
    const raw = jar.get(name)?.value;
    if (!raw) continue;
    const token = await decode({ token: raw, secret: secret! }).catch(() => null);
    if (token?.sessionUid) return token.sessionUid;
  }
  return null;
});

export function isAdmin(user: Pick<UserView, "role"> | null): boolean {
  return user?.role === "admin";
}

/**
 * The client address for the audit log: computed by the one rule (lib/http/client-ip.ts) in the
 * custom server, which replaces any CLIENT_IP_HEADER a client sent. Absent under a bare `next start`.
 */
async function clientIp(): Promise<string | undefined> {
  return (await headers()).get(CLIENT_IP_HEADER)?.slice(0, 64) || undefined;
}

export async function toActor(user: UserView): Promise<Extract<Actor, { kind: "user" }>> {
  return { kind: "user", id: user.id, handle: user.handle, role: user.role, ip: await clientIp() };
}

/** Pages: the signed-in user, or a redirect to the sign-in page. */
export async function requireUser(): Promise<UserView> {
  const user = await getCurrentUser();
  if (!user) redirect("/signin");
  return user;
}

/**
 * The app pages (overview, edit, usage, webhooks): the signed-in user, their actor and the app they
 * may see. A malformed client ID, or an app that is someone else's (the service does not reveal
 * that it exists), is the 404 page.
 */
export async function requireAppPage(params: Promise<{ clientId: string }>): Promise<{ user: UserView; actor: Actor; app: DeveloperAppView }> {
  const user = await requireUser();
  const parsed = clientIdSchema.safeParse((await params).clientId);
  if (!parsed.success) notFound();
  const actor = await toActor(user);
  const app = await getAppForViewer(parsed.data, actor).catch((error: unknown) => {
    if (isAppError(error) && error.code === "not_found") notFound();
    throw error;
  });
  // An agent's client has no portal pages (the admin area's Agents page is where it is seen).
  if (!isDeveloperApp(app)) notFound();
  return { user, actor, app };
}

/**
 * Admin pages: a non-admin gets the 403 page (app/forbidden.tsx), never the page's data; an admin
 * without a second factor (REQUIRE_MFA) is sent to enrol first.
 */
export async function requireAdmin(): Promise<UserView> {
  const user = await requireUser();
  if (!isAdmin(user)) forbidden();
  if (await isSecondFactorMissing(await toActor(user), "admin")) redirect(ENROL_PATH);
  return user;
}

/**
 * The signed-in person for a server action, or `unauthorized` (an action has no page to redirect
 * to). Actions call it only through their gate (lib/actions/gate.ts), which adds the role and the
 * second-factor policy.
 */
export async function requireUserActor(): Promise<Extract<Actor, { kind: "user" }>> {
  const user = await getCurrentUser();
  if (!user) throw new AppError("unauthorized", "Your session has ended. Sign in again.");
  return toActor(user);
}
