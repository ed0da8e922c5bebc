import { readFileSync } from "node:fs";
import type { AppView } from "../schemas/apps";
import { parseWith, services, UsageError, type Command, type Output } from "./command";

/**
 * `apps keys …`: private_key_jwt (RFC 7523) instead of a client secret (lib/services/app-keys.ts).
 * The same service, capability and audit as the app page's Keys card.
 */

type ClientKeys = AppView["clientKeys"];

function keysJson(clientId: string, keys: ClientKeys) {
  return {
    client_id: clientId,
    token_endpoint_auth_method: keys ? "private_key_jwt" : null,
    jwks_uri: keys?.jwksUri ?? null,
    keys: (keys?.keys ?? []).map((k) => ({ kid: k.kid, kty: k.kty, alg: k.alg })),
    updated_at: keys?.updatedAt?.toISOString() ?? null,
  };
}

function keysText(keys: NonNullable<ClientKeys>): string {
  return [
    keys.jwksUri ? `jwks_uri: ${keys.jwksUri} (fetched again every 10 minutes while in use)` : "keys:     pasted",
    ...keys.keys.map((k, i) => `key ${i + 1}:    ${k.kty}${k.alg ? ` ${k.alg}` : ""}${k.kid ? ` kid ${k.kid}` : ""}`),
  ].join("\n");
}

export const appsKeysSet: Command = {
  usage: "apps keys set CLIENT_ID --jwks-uri URL | --jwks-file FILE [--json]",
  summary:
    "Authenticate with private_key_jwt: the app's public keys from its jwks_uri or a JWK Set file; every client secret of the app stops working at once",
  options: { "jwks-uri": { type: "string" }, "jwks-file": { type: "string" } },
  positionals: ["CLIENT_ID"],
  helpDetails: [
    "",
    "Public keys only: a key set with a private member (d, p, q…) is refused. A jwks_uri must be a public https URL;",
    "its keys are fetched now and again every 10 minutes while the app signs in, so a rotation there reaches the platform.",
  ],
  async run({ args, values }): Promise<Output> {
    const { schemas, actor } = await services();
    const { setAppKeys } = await import("../services/app-keys");
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const uri = values["jwks-uri"] as string | undefined;
    const file = values["jwks-file"] as string | undefined;
    if ((uri === undefined) === (file === undefined)) throw new UsageError("give exactly one of --jwks-uri URL and --jwks-file FILE");
    let input: { jwksUri: string } | { jwks: string };
    if (uri !== undefined) {
      input = { jwksUri: parseWith(schemas.jwksUriSchema, uri, { "": "--jwks-uri" }) };
    } else {
      try {
        input = { jwks: readFileSync(file!, "utf8") };
      } catch (error) {
        throw new UsageError(`--jwks-file: cannot read ${file}: ${(error as Error).message}`);
      }
    }
    const keys = await setAppKeys(clientId, actor, input);
    return {
      json: keysJson(clientId, keys),
      text: `${clientId} now authenticates with private_key_jwt; it has no client secret.\n${keysText(keys)}`,
    };
  },
};

export const appsKeysShow: Command = {
  usage: "apps keys show CLIENT_ID [--json]",
  summary: "How the app authenticates at the token endpoint: its private_key_jwt keys (type, algorithm, kid; never more), or none",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }): Promise<Output> {
    const { apps, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const app = await apps.getAppForViewer(clientId, actor);
    return {
      json: keysJson(clientId, app.clientKeys),
      text: app.clientKeys
        ? `${clientId} authenticates with private_key_jwt.\n${keysText(app.clientKeys)}`
        : `${clientId} has no keys: ${app.type === "api" ? "it authenticates with its client secret" : "it is a public client (PKCE)"}.`,
    };
  },
};

export const appsKeysClear: Command = {
  usage: "apps keys clear CLIENT_ID [--json]",
  summary: "Stop using private_key_jwt: an API client gets a new secret on its page (or apps secrets add); a login client is public again",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }): Promise<Output> {
    const { schemas, actor } = await services();
    const { clearAppKeys } = await import("../services/app-keys");
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    await clearAppKeys(clientId, actor);
    return { json: keysJson(clientId, null), text: `${clientId} no longer authenticates with keys.` };
  },
};
