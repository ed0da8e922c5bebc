import { decode } from "next-auth/jwt";
import { cookies } from "next/headers";
import { env } from "../env";
import { getAuthOptions, getEndSessionEndpoint, PORTAL_CLIENT_ID, sessionCookieNames } from "./auth";

/**
 * Sign-out ends both sessions (PRODUCT: sign-out through end_session_endpoint): the portal's cookie
 * is cleared here, and the caller sends the browser to the sign-in service's logout endpoint, with
 * the ID token as `id_token_hint`, which ends the platform session and returns to the portal's
 * home page. Returns that URL.
 */
export async function endPortalSession(): Promise<string> {
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
  return url.toString();
}
