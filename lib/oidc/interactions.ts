import type { IncomingMessage, ServerResponse } from "node:http";
import type Provider from "oidc-provider";
import { errors } from "oidc-provider";
import { z } from "zod";
import { env } from "../env";
import { BodyError, mediaType, readBody } from "../http/body";
import { clientIp } from "../http/client-ip";
import { sendHtml, sendJson, sendRedirect } from "../http/reply";
import { isSameOriginRequest } from "../http/same-origin";
import { logger } from "../logger";
import { rememberConsent } from "../services/consents";
import { LIVE_WORLD_ID } from "../schemas/sandboxes";
import { signInWithPassword } from "./account";
import { findClientWorld } from "./clients";
import { deviceCodeReferences } from "./adapter";
import { interactionBase, INTERACTION_TTL, isHttps, ROUTES } from "./config";
import { LOGIN_USERNAME_COOKIE } from "./constants";
import { renderErrorPage } from "./html";
import { findTrustedDevice, rememberTrustedDevice } from "./trusted-device";
import { noticeIfNewDevice } from "./new-device";
import { amrOf, isStepUpPrompt, MFA_ACR, passkeyAmrOf, PASSWORD_AMR } from "./second-factor";
import { createSignInChallenge, deleteSignInChallenge, findSignInChallenge, verifySecondFactorCode } from "../services/second-factors";
import { reserveLoginAttempt, reserveSecondFactorAttempt, settleLoginAttempt } from "../services/throttle";
import { findPasskeyAccount, startPasskeySignIn, verifyPasskeySignIn } from "../services/passkeys";
import { authenticationResponseSchema } from "../schemas/passkeys";
import { findUserById } from "../services/users";

/**
 * The hosted pages' form posts (STYLE: Request path, OIDC request, step 3). The pages are rendered
 * by Next (pages/interaction/[uid].tsx, without JavaScript); their forms POST here, to
 * `/interaction/:uid/{login,second-factor,consent,abort,switch}`, and this module finishes the interaction with
 * oidc-provider on the raw Node request. Passkeys add two posts made by the pages' one
 * small script (public/hosted/passkey.js): `passkey-options` (JSON: the WebAuthn challenge) and
 * `passkey` (a form post of the browser's answer, finishing the interaction as the password does).
 */
export type InteractionAction = "login" | "second-factor" | "passkey-options" | "passkey" | "consent" | "abort" | "switch";

/** Login forms are tiny; anything bigger is not ours. */
const MAX_BODY_BYTES = 8 * 1024;

const loginForm = z.object({
  username: z.string().trim().min(1).max(100),
  password: z.string().min(1).max(1024),
});

/** A 6-digit TOTP code or a recovery code (`xxxxx-xxxxx`), spaces allowed. */
const secondFactorForm = z.object({ code: z.string().trim().min(1).max(40) });

/** The passkey post: the browser's WebAuthn answer as @simplewebauthn/browser serializes it, in one field. */
const passkeyForm = z.object({
  response: z
    .string()
    .min(2)
    .max(7000)
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "not JSON" });
        return z.NEVER;
      }
    })
    .pipe(authenticationResponseSchema),
});

/** Who a passkey post may sign in: null before any password (usernameless), else the account waiting for its second factor. */
async function passkeyStepAccount(uid: string, details: { prompt: { reasons?: string[] }; session?: { accountId?: string } }): Promise<number | null> {
  const challenge = await findSignInChallenge(uid);
  if (challenge) return challenge.userId;
  const stepUpAccount = isStepUpPrompt(details.prompt.reasons) ? details.session?.accountId : undefined;
  return stepUpAccount && /^[1-9][0-9]{0,9}$/.test(stepUpAccount) ? Number(stepUpAccount) : null;
}

/** Unknown passkeys have no account to count against: their attempts share one pseudo-account (not a valid handle). */
const UNKNOWN_PASSKEY_THROTTLE_HANDLE = "#passkey";

class FormError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (mediaType(req.headers) !== "application/x-www-form-urlencoded") {
    throw new FormError(415, "invalid_request", "The form must be sent as application/x-www-form-urlencoded.");
  }
  try {
    const body = await readBody(req, { limit: MAX_BODY_BYTES, headers: req.headers });
    return new URLSearchParams(body.toString("utf8"));
  } catch (error) {
    if (error instanceof BodyError) throw new FormError(error.status, "invalid_request", error.status === 413 ? "The form is too large." : error.message);
    throw error;
  }
}

function allowedOrigins(): Set<string> {
  const { APP_URL, ISSUER } = env();
  return new Set([new URL(APP_URL).origin, new URL(ISSUER).origin]);
}

function sendErrorPage(res: ServerResponse, status: number, error: string, description?: string): void {
  sendHtml(res, status, renderErrorPage({ error, errorDescription: description, homeUrl: `${env().APP_URL}/` }));
}

function pagePath(uid: string): string {
  return `/interaction/${encodeURIComponent(uid)}`;
}

function backToPage(res: ServerResponse, uid: string, error?: string, retryAt?: Date): void {
  const url = new URL(`${interactionBase()}/${encodeURIComponent(uid)}`);
  if (error) url.searchParams.set("error", error);
  // The throttle's real end of the wait (Unix seconds), so the page need not claim a fixed one.
  if (retryAt) url.searchParams.set("retry_at", String(Math.ceil(retryAt.getTime() / 1000)));
  sendRedirect(res, url.href);
}

/**
 * A refused sign-in keeps its username: the login page reads it back from this cookie (never the
 * URL), which only that interaction's page receives and which lives no longer than the interaction.
 */
function rememberUsername(res: ServerResponse, uid: string, username: string): void {
  const attributes = [
    `${LOGIN_USERNAME_COOKIE}=${encodeURIComponent(username)}`,
    `Path=${pagePath(uid)}`,
    `Max-Age=${INTERACTION_TTL}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(isHttps() ? ["Secure"] : []),
  ];
  res.setHeader("set-cookie", attributes.join("; "));
}

/**
 * The parameters of the authorization request this interaction belongs to, to start it again for
 * another account: minus those naming the account that is leaving (login_hint, id_token_hint).
 */
function restartUrl(params: Record<string, unknown>): string {
  const url = new URL(`${env().ISSUER}${ROUTES.authorization}`);
  for (const [name, value] of Object.entries(params)) {
    if (name === "login_hint" || name === "id_token_hint") continue;
    if (typeof value === "string") url.searchParams.set(name, value);
  }
  return url.href;
}

/** The device's code page again, with its code filled in; the code stops being "in use". */
async function restartDeviceUrl(provider: Provider, deviceCodeId: string): Promise<string> {
  const url = new URL(`${env().ISSUER}${ROUTES.code_verification}`);
  // The interaction names its device code by reference (adapter.ts deviceCodeReferences).
  return deviceCodeReferences.run(true, async () => {
    const code = await provider.DeviceCode.find(deviceCodeId, { ignoreExpiration: true, ignoreSessionBinding: true } as never);
    if (code && !code.accountId && !code.error && !code.isExpired) {
      code.inFlight = undefined;
      await code.save();
      if (code.userCode) url.searchParams.set("user_code", code.userCode);
    }
    return url.href;
  });
}

export async function handleInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  uid: string,
  action: InteractionAction,
): Promise<void> {
  try {
    // CSRF, second layer: the interaction cookie is SameSite=Lax, so a cross-site POST does not
    // carry it; on top, the form must come from our own origin.
    if (!isSameOriginRequest(req.headers, allowedOrigins())) throw new FormError(403, "forbidden", "cross-origin form submission refused");
    const form = await readForm(req);
    const details = await provider.interactionDetails(req, res);
    // The cookie names the interaction; the URL must name the same one.
    if (details.uid !== uid) throw new errors.SessionNotFound("interaction mismatch");
    const prompt = details.prompt.name;

    if (action === "abort") {
      const description = prompt === "consent" ? "The user denied the request." : "The user cancelled the sign-in.";
      await provider.interactionFinished(
        req,
        res,
        { error: "access_denied", error_description: description },
        { mergeWithLastSubmission: false },
      );
      return;
    }

    if (action === "switch") {
      // "Not you? Use another account" (consent page): the account shown signs out of the platform
      // (its session is destroyed, as end-session would, without touching any app's tokens), and the
      // same authorization request starts again, so the login page asks who is there.
      const sessionId = details.session?.cookie;
      const session = sessionId ? await provider.Session.find(sessionId) : undefined;
      await session?.destroy();
      const interaction = await provider.Interaction.find(details.uid);
      await interaction?.destroy();
      logger.info("sign-in restarted for another account", { client: details.params.client_id });
      // A device sign-in (RFC 8628) starts again at its code, which is made enterable once more.
      const deviceCodeId = (details as { deviceCode?: string }).deviceCode;
      if (deviceCodeId) return sendRedirect(res, await restartDeviceUrl(provider, deviceCodeId));
      sendRedirect(res, restartUrl(details.params));
      return;
    }

    if (action === "login") {
      if (prompt !== "login") return backToPage(res, uid);
      const username = (form.get("username") ?? "").trim().slice(0, 100);
      const parsed = loginForm.safeParse({ username: form.get("username") ?? "", password: form.get("password") ?? "" });
      if (!parsed.success) {
        if (username) rememberUsername(res, uid, username);
        return backToPage(res, uid, "missing_fields");
      }
      const handle = parsed.data.username.replace(/^@/, "").toLowerCase();
      // Credentials are looked up in the client's world (a sandbox's test users for its
      // sbx_ client); a client gone since the page was shown (its app suspended) signs nobody in.
      const worldId = await findClientWorld(String(details.params.client_id ?? ""));
      if (worldId === null) throw new errors.SessionNotFound("the interaction's client is gone");
      const live = worldId === LIVE_WORLD_ID;
      // Trusted devices (the account lockout's way around) are a live account's; test users have none.
      const trustedDevice = live ? await findTrustedDevice(req, handle) : undefined;
      const ip = clientIp(req, env().TRUST_PROXY_RULE);
      const result = await signInWithPassword(parsed.data.username, parsed.data.password, ip, trustedDevice, worldId);
      if (!result.ok && result.error === "busy") {
        // Too many sign-ins waiting for a password check. A plain page (no JavaScript),
        // the form's answer itself, so the browser's Back returns to the filled-in form.
        logger.warn("sign-in turned away: password checks saturated", { client: details.params.client_id });
        res.setHeader("retry-after", String(result.retryAfterSeconds));
        sendErrorPage(
          res,
          503,
          "temporarily_unavailable",
          `Too many people are signing in right now. Your password was not checked. Go back and try again in ${result.retryAfterSeconds} seconds.`,
        );
        return;
      }
      if (!result.ok) {
        logger.info("sign-in refused", { reason: result.error, client: details.params.client_id });
        rememberUsername(res, uid, parsed.data.username);
        return backToPage(res, uid, result.error, result.error === "too_many_attempts" ? result.retryAt : undefined);
      }
      if (live) await noticeIfNewDevice(req, { userId: Number(result.accountId), handle: result.handle }, trustedDevice);
      // An account with a second factor is not signed in yet: the page asks for it next. The
      // browser is trusted only once the whole sign-in succeeded (lib/oidc/trusted-device.ts): a
      // cookie given for the password alone would let whoever has it skip the account's lock.
      if (live && result.hasSecondFactor) {
        await createSignInChallenge(uid, Number(result.accountId), INTERACTION_TTL);
        return backToPage(res, uid);
      }
      if (live) await rememberTrustedDevice(res, result.handle);
      await provider.interactionFinished(req, res, { login: { accountId: result.accountId, amr: PASSWORD_AMR } }, { mergeWithLastSubmission: false });
      return;
    }

    if (action === "second-factor") {
      if (prompt !== "login") return backToPage(res, uid);
      // After this interaction's right password (a challenge), or a step-up of the session's own
      // account (acr_values asked for a second factor, config.ts mfa_step_up).
      const challenge = await findSignInChallenge(uid);
      const stepUpAccount = isStepUpPrompt(details.prompt.reasons) ? details.session?.accountId : undefined;
      const userId = challenge?.userId ?? (stepUpAccount ? Number(stepUpAccount) : null);
      const user = userId ? await findUserById(userId) : null;
      if (!user || user.disabled) return backToPage(res, uid);
      const parsed = secondFactorForm.safeParse({ code: form.get("code") ?? "" });
      if (!parsed.success) return backToPage(res, uid, "missing_code");
      // Wrong codes count as wrong passwords do, on the account and the address (lib/services/throttle.ts).
      const trustedDevice = await findTrustedDevice(req, user.handle);
      const admission = await reserveLoginAttempt(user.handle, clientIp(req, env().TRUST_PROXY_RULE), trustedDevice);
      if (!admission.ok) return backToPage(res, uid, "too_many_attempts", admission.retryAt);
      // And on the account's own count of wrong codes, which no trusted-device cookie lifts.
      const factorAdmission = await reserveSecondFactorAttempt(user.handle);
      if (!factorAdmission.ok) {
        await settleLoginAttempt(admission.reservation, "unchecked");
        return backToPage(res, uid, "too_many_attempts", factorAdmission.retryAt);
      }
      if (admission.reservation.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, admission.reservation.delayMs));
      const method = await verifySecondFactorCode(user.id, parsed.data.code);
      await settleLoginAttempt(admission.reservation, method ? "success" : "failure");
      await factorAdmission.settle(method ? "success" : "failure");
      if (!method) {
        logger.info("second factor refused", { client: details.params.client_id });
        return backToPage(res, uid, "invalid_code");
      }
      await deleteSignInChallenge(uid);
      await rememberTrustedDevice(res, user.handle);
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: String(user.id), amr: amrOf(method), acr: MFA_ACR } },
        { mergeWithLastSubmission: false },
      );
      return;
    }

    if (action === "passkey-options") {
      // JSON for the page's script (it shows the button only when this answers).
      if (prompt !== "login") return sendJson(res, 409, { error: { code: "conflict", message: "This sign-in is past the passkey step." } });
      const worldId = await findClientWorld(String(details.params.client_id ?? ""));
      if (worldId !== LIVE_WORLD_ID) return sendJson(res, 409, { error: { code: "conflict", message: "Passkeys are not offered here." } });
      const options = await startPasskeySignIn(uid, await passkeyStepAccount(uid, details));
      res.setHeader("cache-control", "no-store");
      return sendJson(res, 200, { options });
    }

    if (action === "passkey") {
      if (prompt !== "login") return backToPage(res, uid);
      const parsed = passkeyForm.safeParse({ response: form.get("response") ?? "" });
      if (!parsed.success) return backToPage(res, uid, "passkey_failed");
      // Passkeys are live accounts' (registered in the portal); a sandbox client's sign-in has none.
      if ((await findClientWorld(String(details.params.client_id ?? ""))) !== LIVE_WORLD_ID) return backToPage(res, uid, "passkey_failed");
      const expectedUserId = await passkeyStepAccount(uid, details);
      // Wrong passkey answers count as wrong passwords and codes do (lib/services/throttle.ts), on
      // the account the credential names (or the one whose second factor this is) and the address.
      const ownerId = expectedUserId ?? (await findPasskeyAccount(parsed.data.response.id));
      const owner = ownerId ? await findUserById(ownerId) : null;
      const handle = owner?.handle ?? UNKNOWN_PASSKEY_THROTTLE_HANDLE;
      const trustedDevice = owner ? await findTrustedDevice(req, owner.handle) : undefined;
      const admission = await reserveLoginAttempt(handle, clientIp(req, env().TRUST_PROXY_RULE), trustedDevice);
      if (!admission.ok) return backToPage(res, uid, "too_many_attempts", admission.retryAt);
      if (admission.reservation.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, admission.reservation.delayMs));
      const result = await verifyPasskeySignIn(uid, parsed.data.response);
      await settleLoginAttempt(admission.reservation, result.ok ? "success" : "failure");
      if (!result.ok) {
        logger.info("passkey refused", { reason: result.reason, client: details.params.client_id });
        return backToPage(res, uid, "passkey_failed");
      }
      const user = await findUserById(result.userId);
      if (!user || user.disabled) return backToPage(res, uid, "account_disabled");
      // A passkey alone from a browser new to the account is told, as a password sign-in is.
      await noticeIfNewDevice(req, { userId: user.id, handle: user.handle }, trustedDevice);
      await rememberTrustedDevice(res, user.handle);
      await deleteSignInChallenge(uid);
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: String(user.id), amr: passkeyAmrOf(result.amr, expectedUserId !== null), acr: MFA_ACR } },
        { mergeWithLastSubmission: false },
      );
      return;
    }

    // consent
    if (prompt !== "consent") return backToPage(res, uid);
    const accountId = details.session?.accountId;
    const clientId = String(details.params.client_id ?? "");
    if (!accountId || !clientId) throw new errors.SessionNotFound("interaction without a signed-in account");
    const { Grant } = provider;
    let grant = details.grantId ? await Grant.find(details.grantId) : undefined;
    grant ??= new Grant({ accountId, clientId });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      if (scopes.length) grant.addResourceScope(indicator, scopes.join(" "));
    }
    const grantId = await grant.save();
    const requested = String(details.params.scope ?? "").split(" ").filter(Boolean);
    await rememberConsent(Number(accountId), clientId, requested);
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  } catch (error) {
    if (error instanceof FormError) {
      sendErrorPage(res, error.status, error.code, error.message);
      return;
    }
    if (error instanceof errors.SessionNotFound) {
      sendErrorPage(res, 400, "session_not_found", "This sign-in request has expired or was already used.");
      return;
    }
    logger.error("interaction failed", { action, error: (error as Error).message });
    sendErrorPage(res, 500, "server_error");
  }
}
