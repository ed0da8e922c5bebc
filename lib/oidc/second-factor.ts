import { interactionPolicy, type KoaContextWithOIDC } from "oidc-provider";
import type { SecondFactorMethod } from "../services/second-factors";
import { hasSecondFactor } from "../services/second-factors";

/**
 * The second factor at the sign-in service, as apps see it (docs: "Second factor and
 * step-up"). `amr` (RFC 8176) says how the person signed in:
 * - password only: `["pwd"]`;
 * - password and a code from the authenticator app: `["pwd", "otp", "mfa"]`;
 * - password and a recovery code: `["pwd", "mfa"]` — two factors, but the second is not the
 *   authenticator's one-time password (a written-down code), so `otp` is not claimed;
 * - a passkey, alone or after the password: passkeyAmrOf below.
 * `acr` is MFA_ACR whenever a second factor was used, and absent otherwise. An authorization
 * request with `acr_values` naming MFA_ACR gets step-up: a person whose session came from the
 * password alone is asked for their second factor (the check below), and the ID token's `acr`
 * says whether it was given (an account without a second factor cannot give one: the app decides).
 */
export const MFA_ACR = "urn:social-dev-platform:mfa";
export const PASSWORD_AMR = ["pwd"];
/** The login prompt's reason for a step-up (the hosted page then asks for the second factor only). */
export const STEP_UP_REASON = "mfa_step_up";

export function amrOf(method: SecondFactorMethod): string[] {
  return method === "otp" ? ["pwd", "otp", "mfa"] : ["pwd", "mfa"];
}

/**
 * A passkey's `amr`: `hwk` for a device-bound key, `swk` for one its provider syncs (RFC 8176 §2).
 * - After the password: `["pwd", "hwk", "mfa"]`.
 * - Alone: `["hwk", "mfa"]`. The passkey-only sign-in requires user verification (the PIN or
 *   biometric that unlocks the key), so it is two factors by itself, as NIST SP 800-63B counts a
 *   multi-factor cryptographic authenticator; which unlock was used is not known to the server,
 *   so no `pin`/`fpt`/`face` is claimed.
 */
export function passkeyAmrOf(key: "hwk" | "swk", afterPassword: boolean): string[] {
  return afterPassword ? ["pwd", key, "mfa"] : [key, "mfa"];
}

/** True when the login prompt is there only for a step-up (the session's account is known). */
export function isStepUpPrompt(reasons: readonly string[] | undefined): boolean {
  return Array.isArray(reasons) && reasons.length === 1 && reasons[0] === STEP_UP_REASON;
}

function requestedAcrs(ctx: KoaContextWithOIDC): string[] {
  const value = ctx.oidc.params?.acr_values;
  return typeof value === "string" ? value.split(" ").filter(Boolean) : [];
}

/**
 * The login prompt's step-up check: `acr_values` asks for MFA_ACR, the browser's session was not
 * made with a second factor, and the account has one. Looked up only for requests that ask.
 */
export function stepUpCheck(): interactionPolicy.Check {
  return new interactionPolicy.Check(STEP_UP_REASON, "A second factor is required", "login_required", async (ctx) => {
    const { session } = ctx.oidc;
    if (!session?.accountId || ctx.oidc.result?.login) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
    if (!requestedAcrs(ctx).includes(MFA_ACR) || session.acr === MFA_ACR) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
    if (!/^[1-9][0-9]{0,9}$/.test(session.accountId)) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
    return (await hasSecondFactor(Number(session.accountId))) ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT;
  });
}
