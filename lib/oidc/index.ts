import type { IncomingMessage, ServerResponse } from "node:http";
import { onChange } from "../database/changes";
import { env } from "../env";
import { requestIdFrom } from "../http/request-id";
import { applySecurityHeaders } from "../http/security-headers";
import { logger } from "../logger";
import { countTokenGrant, countTokenRequest } from "../metrics";
import { startExpiredModelCleanup } from "./adapter";
import { tryClientCredentialsGrant } from "./client-credentials";
import { ROUTES } from "./config";
import { handleInteraction, type InteractionAction } from "./interactions";
import { listPublishedKeys, keySetFingerprint } from "./keys";
import { buildProvider, type BuiltProvider } from "./provider";
import { handleRegistration } from "./registration";
import { tryRefreshTokenGrant } from "./refresh-grant";
import { isTokenFormCandidate, parseTokenForm, readCandidateBody, tokenSigners, type TokenSigners } from "./token-form";

/**
 * The sign-in service as server.ts sees it: requests under the issuer path go to oidc-provider
 * (mounted as its docs' "Mounting oidc-provider" shows: the prefix stripped, the full URL kept as
 * `originalUrl`), interaction form posts to lib/oidc/interactions.ts.
 */
export interface OidcService {
  handle(req: IncomingMessage, res: ServerResponse, issuerPath: string): Promise<void>;
  handleInteraction(req: IncomingMessage, res: ServerResponse, uid: string, action: InteractionAction): Promise<void>;
  stop?(): Promise<void>;
}

export async function createOidc(): Promise<OidcService> {
  let current: BuiltProvider = await buildProvider();
  let callback = current.provider.callback();
  // The token endpoint's fast paths sign with the provider's keys (token-form.ts).
  let signers = tokenSigners(await listPublishedKeys());

  // Rotation (rotateSigningKeys, possibly in another process) changes the published key set; a
  // fresh Provider picks it up as soon as the change channel announces it, or at the latest within
  // SIGNING_KEY_POLL_SECONDS. Requests in flight finish on the instance they started with.
  let rebuilding = false;
  let again = false;
  const reloadKeys = () => {
    if (rebuilding) {
      again = true;
      return;
    }
    rebuilding = true;
    listPublishedKeys()
      .then(async (keys) => {
        if (keySetFingerprint(keys.map((k) => k.privateJwk)) === current.keysFingerprint) return;
        current = await buildProvider();
        callback = current.provider.callback();
        signers = tokenSigners(keys);
        logger.info("signing keys changed: sign-in service reloaded");
      })
      .catch((error: unknown) => logger.warn("signing key poll failed", { error: (error as Error).message }))
      .finally(() => {
        rebuilding = false;
        if (again) {
          again = false;
          reloadKeys();
        }
      });
  };
  const poll = setInterval(reloadKeys, env().SIGNING_KEY_POLL_SECONDS * 1000);
  poll.unref();
  const unsubscribe = onChange((event) => {
    if (event.kind === "keys" || event.kind === "all") reloadKeys();
  });
  const stopCleanup = startExpiredModelCleanup();

  return {
    async handle(req, res, issuerPath) {
      const original = req.url ?? "/";
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = original;
      req.url = original.slice(issuerPath.length) || "/";
      if (!req.url.startsWith("/")) req.url = `/${req.url}`;
      // Every token-endpoint answer (fast paths and oidc-provider's, errors included) carries
      // an X-Request-Id, and the usage meter logs the grant under it (the app's request log).
      const subpath = req.url.split("?")[0];
      if (subpath === ROUTES.registration && env().DYNAMIC_REGISTRATION === "agents") {
        return handleRegistration(req, res);
      }
      const isTokenEndpoint = subpath === ROUTES.token;
      if (isTokenEndpoint) res.setHeader("x-request-id", requestIdFrom(req.headers["x-request-id"] as string | undefined));
      if (isTokenFormCandidate(req, req.url, ROUTES.token)) {
        const body = await readCandidateBody(req);
        // Any failure in a fast path before it answers (a database error…) goes to oidc-provider,
        // which answers it in OAuth form as it always has.
        const dpop = req.headers.dpop === undefined ? undefined : [req.headers.dpop].flat().join(", ");
        if (await tryFastGrant(res, body, signers, dpop).catch(() => false)) return;
        // oidc-provider's body parser uses req.body once the stream has been read.
        (req as IncomingMessage & { body?: Buffer }).body = body;
      }
      if (req.method === "POST" && isTokenEndpoint) countTokenRequest("oidc_provider");
      applySecurityHeaders(res);
      await new Promise<void>((resolve) => {
        res.once("close", resolve);
        res.once("finish", resolve);
        callback(req, res);
      });
    },
    handleInteraction(req, res, uid, action) {
      return handleInteraction(current.provider, req, res, uid, action);
    },
    async stop() {
      clearInterval(poll);
      unsubscribe();
      stopCleanup();
    },
  };
}

/** Counts `path` (lib/metrics.ts) once `answered` says the fast path wrote the reply. */
async function counted(path: "client_credentials_fast" | "refresh_fast", answered: Promise<boolean>): Promise<boolean> {
  const done = await answered;
  if (done) {
    countTokenRequest(path);
    // A fast path answers only the happy shape: a grant issued.
    countTokenGrant(path === "client_credentials_fast" ? "client_credentials" : "refresh_token", null);
  }
  return done;
}

/** The token endpoint's fast paths (client-credentials.ts, refresh-grant.ts): true when one answered. */
function tryFastGrant(res: ServerResponse, body: Buffer, signers: TokenSigners, dpop: string | undefined): Promise<boolean> {
  const form = parseTokenForm(body);
  switch (form?.get("grant_type")) {
    case "client_credentials":
      return counted("client_credentials_fast", tryClientCredentialsGrant(res, form!, signers.accessToken, dpop));
    case "refresh_token":
      return counted("refresh_fast", tryRefreshTokenGrant(res, form!, signers, dpop));
    default:
      return Promise.resolve(false);
  }
}
