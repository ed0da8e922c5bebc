import type { NextAuthOptions } from "next-auth";
import { env } from "../env";
import { resolveReturnUrl } from "../http/return-url";
import { PORTAL_CLIENT_ID } from "../services/apps";
import { getNextAuthSecret } from "../services/settings";
import { findSessionUidOfRefreshToken, isSignInSessionLive } from "../services/sign-in-sessions";

/**
 * next-auth for the developer portal: the portal is a first-party, public login client of the
 * platform's own sign-in service (ensured at start-up by lib/server/platform.ts), so developers sign
 * in on the hosted login page with PKCE, and no consent screen is shown.
 *
 * The portal keeps only who signed in (the user id from `sub`), the ID token (for `id_token_hint`
 * at sign-out) and the uid of the sign-in session it came from (ended there, ended here)
 * in its encrypted session cookie. Role, disabled and muted flags are
 * read from the database on every request by lib/portal/session.ts, so an admin demotion or a disabled
 * account takes effect at once.
 */

export const AUTH_PROVIDER_ID = "platform";
/** Portal sessions are short: an admin session is a powerful thing to leave lying around. */
const SESSION_MAX_AGE_SECONDS = 8 * 60 * 60;

declare module "next-auth" {
  interface Session {
    /** The platform user id (decimal string, the ID token's `sub`). */
    userId?: string;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    uid?: string;
    /** Kept server-side only (never copied into the session object sent to the browser). */
    idToken?: string;
    /**
     * The uid of the sign-in service's session this portal session came from, kept
     * server-side only. A portal session whose sign-in session was ended is refused.
     */
    sessionUid?: string;
  }
}

/** next-auth reads its own base URL from NEXTAUTH_URL; derive it from the validated APP_URL. */
function pinNextAuthUrl(appUrl: string): void {
  const wanted = `${appUrl}/api/auth`;
  if (process.env.NEXTAUTH_URL !== wanted) process.env.NEXTAUTH_URL = wanted;
}

/** Cookie names next-auth uses for the session (the `__Secure-` prefix on https). */
export function sessionCookieNames(): string[] {
  return ["__Secure-next-auth.session-token", "next-auth.session-token"];
}

let cached: Promise<NextAuthOptions> | undefined;

/** The options are async because the secret may be generated and stored in the database. */
export function getAuthOptions(): Promise<NextAuthOptions> {
  cached ??= buildAuthOptions().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function buildAuthOptions(): Promise<NextAuthOptions> {
  const config = env();
  pinNextAuthUrl(config.APP_URL);
  const secret = await getNextAuthSecret();
  return {
    secret,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/signin", error: "/signin" },
    providers: [
      {
        id: AUTH_PROVIDER_ID,
        name: "Platform account",
        type: "oauth",
        wellKnown: `${config.ISSUER}/.well-known/openid-configuration`,
        clientId: PORTAL_CLIENT_ID,
        // A public client: PKCE instead of a secret (PRODUCT: login clients are public, S256 only).
        client: { token_endpoint_auth_method: "none" },
        checks: ["pkce", "state"],
        idToken: true,
        authorization: { params: { scope: "openid profile" } },
        profile(profile: { sub: string; name?: string; preferred_username?: string; picture?: string }) {
          return {
            id: profile.sub,
            name: profile.name ?? profile.preferred_username ?? null,
            image: profile.picture ?? null,
          };
        },
      },
    ],
    callbacks: {
      async jwt({ token, account, profile }) {
        if (account) {
          token.uid = (profile as { sub?: string } | undefined)?.sub ?? account.providerAccountId;
          token.idToken = account.id_token;
          // The portal's refresh token is bound to the sign-in session (its `sessionUid`).
          token.sessionUid = (account.refresh_token ? await findSessionUidOfRefreshToken(account.refresh_token) : null) ?? undefined;
        }
        return token;
      },
      async session({ session, token }) {
        // No user for a portal session whose sign-in session was ended (Account
        // security's "Sign out", `users sign-out`, `users mfa reset`) or that names none.
        const uid = token.uid && /^[0-9]{1,10}$/.test(token.uid) ? token.uid : undefined;
        const live = uid !== undefined && token.sessionUid !== undefined && (await isSignInSessionLive(token.sessionUid, Number(uid)));
        return { ...session, userId: live ? uid : undefined };
      },
      redirect({ url }) {
        // Only same-origin callback URLs: an open redirect after sign-in is a phishing aid.
        return resolveReturnUrl(url, config.APP_URL);
      },
    },
    // next-auth logs its own errors with request details; route them to our JSON logger, without tokens.
    logger: {
      error: (code) => void import("../logger").then(({ logger }) => logger.error("next-auth error", { code })),
      warn: (code) => void import("../logger").then(({ logger }) => logger.warn("next-auth warning", { code })),
      debug: () => {},
    },
  };
}

/** The sign-in service's RP-initiated logout endpoint (SPEC Authentication: end_session_endpoint). */
export async function getEndSessionEndpoint(): Promise<string> {
  const { ISSUER } = env();
  try {
    const res = await fetch(`${ISSUER}/.well-known/openid-configuration`, { cache: "no-store" });
    if (res.ok) {
      const doc = (await res.json()) as { end_session_endpoint?: unknown };
      if (typeof doc.end_session_endpoint === "string") return doc.end_session_endpoint;
    }
  } catch {
    // The documented path below is the same; discovery is preferred so a changed issuer layout still works.
  }
  return `${ISSUER}/protocol/openid-connect/logout`;
}

export { PORTAL_CLIENT_ID };
