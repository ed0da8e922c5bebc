"use server";

import { decode } from "next-auth/jwt";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getAuthOptions, getEndSessionEndpoint, PORTAL_CLIENT_ID, sessionCookieNames } from "@/lib/portal/auth";
import { env } from "@/lib/env";

/**
 * Sign-out ends both sessions (PRODUCT: sign-out through end_session_endpoint): the portal's cookie
 * is cleared here, then the browser goes to the sign-in service's logout endpoint with the ID token
 * as `id_token_hint`, which ends the platform session and returns to the portal's home page.
 */
export async function signOutAction(): Promise<never> {
  const jar = await cookies();
  const { secret } = await getAuthOptions();
  let idToken: string | undefined;
  for (const name of sessionCookieNames()) {
    const raw = jar.get(name)?.value;
    if (!raw) continue;
    const token = await decode({ token: raw, secret: secret! }).catch(() => null);
    idToken ??= token?.idToken;
    jar.set(name, "", { path: "/", maxAge: 0, httpOnly: true, sameSite: "lax", secure: name.startsWith("__Secure-") });
  }
  const url = new URL(await getEndSessionEndpoint());
  url.searchParams.set("client_id", PORTAL_CLIENT_ID);
  url.searchParams.set("post_logout_redirect_uri", `${env().APP_URL}/`);
  if (idToken) url.searchParams.set("id_token_hint", idToken);
  redirect(url.toString());
}
