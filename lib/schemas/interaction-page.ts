import type { Locale } from "../i18n";
import type { AppIdentityData } from "./apps";

/**
 * What the hosted login and consent page at `/interaction/:uid` shows (lib/oidc/interaction-page.ts
 * decides it; components/interaction/interaction-page.tsx renders it). One shape for both ways the
 * page is served: Next (pages/interaction/[uid].tsx) and the server's own fast path
 * (lib/server/hosted-page.ts), so they cannot drift apart.
 */
export type InteractionPageProps = {
  /** The page's language (lib/i18n) and its own path for the language switch. */
  locale: Locale;
  path: string;
} & (
  | { kind: "expired" }
  | {
      kind: "login";
      uid: string;
      clientName: string;
      /** A sandbox client's page (its banner). */
      sandbox: boolean;
      /** A device sign-in: cancelling goes back to the code page, not to the app. */
      device: boolean;
      username: string;
      /** "Sign in with a passkey" is offered (a live app's page; the button needs JavaScript). */
      passkey: boolean;
      error: { code: string; message: string } | null;
    }
  | {
      /** The account's second factor, after its password or for a step-up. */
      kind: "second_factor";
      uid: string;
      clientName: string;
      sandbox: boolean;
      device: boolean;
      handle: string;
      /** The session's account is asked again because the app wants a second factor. */
      stepUp: boolean;
      /** The account has a passkey: offered beside the code (needs JavaScript). */
      passkey: boolean;
      /** The account has an authenticator app; without one, the code asked for is a recovery code. */
      totp: boolean;
      error: { code: string; message: string } | null;
    }
  | {
      kind: "consent";
      uid: string;
      clientName: string;
      sandbox: boolean;
      ownerHandle: string | null;
      account: { handle: string; displayName: string } | null;
      scopes: { scope: string; description: string }[];
      identity: AppIdentityData;
      /**
       * An AI agent's client (issue 40): its name is only its own claim; what the platform verified
       * is its client ID's domain; `reviewed`: its domain is trusted by the admins.
       */
      agent: { clientId: string; domain: string; reviewed: boolean } | null;
      consentKind: "first" | "more" | "again";
      added: string[];
    }
);
