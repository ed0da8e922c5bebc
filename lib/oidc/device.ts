import { createHash } from "node:crypto";
import type { Configuration, KoaContextWithOIDC } from "oidc-provider";
import { z } from "zod";
import { env } from "../env";
import { clientIp } from "../http/client-ip";
import { logger } from "../logger";
import { isPollingTooFast, reserveDeviceCodeEntry } from "../services/throttle";
import { deviceCodeReferences } from "./adapter";
import { DEVICE_CODE_GRANT } from "./clients";
import { DEVICE_ERRORS, DEVICE_PAGE_PATH, DEVICE_XSRF_COOKIE } from "./constants";

/**
 * Device sign-in (RFC 8628) around oidc-provider's `deviceFlow` feature. oidc-provider
 * runs the protocol (device authorization endpoint, user-code verification with its xsrf check,
 * the device code grant); the platform adds:
 * - its own pages: the three `*Source` hooks hand the form's xsrf value to the Next-rendered page
 *   (pages/interaction/device.tsx, no JavaScript) in a short-lived cookie and redirect there, as
 *   the logout confirmation does (provider.ts logoutSource);
 * - a throttle on wrong user codes per client IP (oidc-provider has none);
 * - `interval` in the device authorization response and `slow_down` for polling faster than it
 *   (oidc-provider 9 defines the error but never answers it).
 */

/** RFC 8628 §3.2 `interval`, and the pace under which polling gets `slow_down`. */
export const DEVICE_POLL_INTERVAL = 5;
/** How long a device code waits for the person (RFC 8628 §3.2 `expires_in`). */
export const DEVICE_CODE_TTL = 10 * 60;

type DeviceFlowFeature = NonNullable<NonNullable<Configuration["features"]>["deviceFlow"]>;
type DeviceError = (typeof DEVICE_ERRORS)[number];

/** A user code as typed or linked (verification_uri_complete): printable, short. */
const userCodeSchema = z.string().trim().min(1).max(32).regex(/^[A-Za-z0-9 -]+$/);

interface DeviceState {
  /** From verification_uri_complete: shown in the input box, never submitted for the person. */
  prefill?: string;
  /** The entry was a code that does not exist: it stays counted against the IP. */
  wrongCode?: boolean;
}

function stateOf(ctx: KoaContextWithOIDC): DeviceState {
  const state = ctx.state as { device?: DeviceState };
  return (state.device ??= {});
}

function pageUrl(query: Record<string, string | undefined>): string {
  const url = new URL(DEVICE_PAGE_PATH, env().APP_URL);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}

function sendToPage(ctx: KoaContextWithOIDC, query: Record<string, string | undefined>, xsrf?: string): void {
  if (xsrf) {
    ctx.cookies.set(DEVICE_XSRF_COOKIE, xsrf, {
      path: DEVICE_PAGE_PATH,
      httpOnly: true,
      sameSite: "lax",
      secure: ctx.cookies.secure,
      signed: false,
      maxAge: DEVICE_CODE_TTL * 1000,
    });
  }
  ctx.set("cache-control", "no-store");
  ctx.status = 303;
  ctx.redirect(pageUrl(query));
}

function xsrfOf(form: string): string {
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(form)?.[1];
  if (!xsrf) throw new Error("device form without xsrf");
  return xsrf;
}

/** oidc-provider's re-render errors (lib/helpers/re_render_errors.js) by name, and the rest. */
function deviceError(err: (Error & { name?: string }) | undefined, out: { error?: string } | undefined): DeviceError | "cancelled" {
  switch (err?.name) {
    case "NoCodeError":
      return "missing";
    case "NotFoundError":
      return "not_found";
    case "ExpiredError":
      return "expired";
    case "AlreadyUsedError":
      return "used";
    case "AbortedError":
      return "cancelled";
    default:
      if (out?.error === "access_denied") return "cancelled";
      // The app is unknown now: suspended, or deleted, since the device asked.
      return out?.error === "invalid_client" ? "app_unavailable" : "failed";
  }
}

export const userCodeInputSource: DeviceFlowFeature["userCodeInputSource"] = async (ctx, form, out, err) => {
  const xsrf = xsrfOf(form);
  const state = stateOf(ctx);
  if (!err) {
    sendToPage(ctx, { step: "input", user_code: state.prefill }, xsrf);
    return;
  }
  const kind = deviceError(err as Error, out);
  if (kind === "not_found") state.wrongCode = true;
  if (kind === "failed") logger.debug("device sign-in refused", { error: out?.error, description: out?.error_description });
  if (kind === "cancelled") {
    sendToPage(ctx, { step: "cancelled" }, xsrf);
    return;
  }
  // The code the person typed comes back into the box, a wrong one too (a typo is fixed
  // in place, not typed again); only a well-formed code is echoed.
  const typed = userCodeSchema.safeParse((err as { userCode?: unknown }).userCode ?? ctx.oidc.params?.user_code).data;
  sendToPage(ctx, { step: "input", error: kind, user_code: typed }, xsrf);
};

export const userCodeConfirmSource: DeviceFlowFeature["userCodeConfirmSource"] = async (ctx, form, _client, _deviceInfo, userCode) => {
  sendToPage(ctx, { step: "confirm", user_code: userCode }, xsrfOf(form));
};

export const successSource: DeviceFlowFeature["successSource"] = async (ctx) => {
  ctx.cookies.set(DEVICE_XSRF_COOKIE, null, { path: DEVICE_PAGE_PATH });
  sendToPage(ctx, { step: "success", client_id: ctx.oidc.client?.clientId });
};

function digest(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}

/**
 * Koa middleware of the provider (provider.ts): the throttle on user-code entry, the prefill of
 * verification_uri_complete without oidc-provider's auto-submitting (JavaScript) form, and
 * slow_down on the token endpoint.
 */
export function deviceFlowMiddleware(routes: { code_verification: string; device_authorization: string; token: string }) {
  return async function deviceFlow(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    if (ctx.path === routes.code_verification && ctx.method === "GET" && ctx.query.user_code !== undefined) {
      // oidc-provider would answer a form that submits itself with script; the page shows the code
      // in its box instead, and the person presses Continue (RFC 8628 §3.3.1).
      stateOf(ctx).prefill = userCodeSchema.safeParse(ctx.query.user_code).data;
      ctx.querystring = "";
      await next();
      return;
    }
    if (ctx.path === routes.code_verification && ctx.method === "POST") {
      const admission = await reserveDeviceCodeEntry(clientIp(ctx.req, env().TRUST_PROXY_RULE));
      if (!admission.ok) {
        logger.info("device code entry throttled");
        sendToPage(ctx, {
          step: "input",
          error: "too_many_attempts",
          retry_at: String(Math.ceil(admission.retryAt.getTime() / 1000)),
        });
        return;
      }
      try {
        await deviceCodeReferences.run(true, next);
      } catch (error) {
        // oidc-provider 9.13 (lib/helpers/initialize_app.js ensureSessionSave) cannot save the
        // xsrf of its error page on a session it never stored, i.e. a form posted without this
        // browser's session (cross-site, or cookies gone): start the page afresh instead of a 500.
        if (!(error instanceof TypeError && error.message.startsWith("persist can only be called"))) throw error;
        ctx.set("cache-control", "no-store");
        ctx.status = 303;
        ctx.redirect(`${env().ISSUER}${routes.code_verification}`);
      } finally {
        if (!stateOf(ctx).wrongCode) await admission.release();
      }
      return;
    }
    if (ctx.path.startsWith(`${routes.code_verification}/`)) {
      // device_resume: the interaction names its device code by reference (adapter.ts).
      await deviceCodeReferences.run(true, next);
      return;
    }
    await next();
    if (ctx.status !== 400) return;
    const body = ctx.body as { error?: string; error_description?: string } | undefined;
    if (ctx.path === routes.device_authorization) {
      // RFC 6749 §5.2 names this case unauthorized_client; oidc-provider says invalid_request.
      if (body?.error === "invalid_request" && body.error_description?.endsWith("is not allowed for this client")) {
        ctx.body = { error: "unauthorized_client", error_description: "this client may not use device sign-in" };
      }
      return;
    }
    if (ctx.path !== routes.token) return;
    const params = ctx.oidc?.params as { grant_type?: unknown; device_code?: unknown } | undefined;
    if (body?.error !== "authorization_pending" || params?.grant_type !== DEVICE_CODE_GRANT || typeof params.device_code !== "string") return;
    if (await isPollingTooFast(digest(params.device_code), DEVICE_POLL_INTERVAL)) {
      ctx.body = {
        error: "slow_down",
        // RFC 8628 §3.5: the client adds 5 seconds to its interval from now on.
        error_description: `polling faster than the ${DEVICE_POLL_INTERVAL}-second interval: add 5 seconds to it`,
      };
    }
  };
}
