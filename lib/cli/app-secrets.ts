import type { RevealedSecret } from "../schemas/apps";
import { parseWith, services, type Command, type Output } from "./command";
import { revealedSecretJson, secretJson } from "./json";

/** `apps secrets …`: an API client's secrets, rotated without downtime or rolled after a leak. */

function revealedOutput(revealed: RevealedSecret, what: string): Output {
  return {
    json: revealedSecretJson(revealed),
    text: [
      what,
      `id:            ${revealed.secretId}`,
      `client_secret: ${revealed.clientSecret}`,
      "Store the secret now: it is shown only once and cannot be recovered.",
    ].join("\n"),
  };
}

export const appsSecretsList: Command = {
  usage: "apps secrets list CLIENT_ID [--json]",
  summary: "List an API client's active secrets (id, last four characters, created, last used; never the value)",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { secrets, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const list = await secrets.listSecrets(clientId, actor);
    const when = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace("T", " ") + " UTC" : "never");
    return {
      json: list.map(secretJson),
      text: list.length
        ? list.map((s) => `${s.id}  …${s.hint}  created ${when(s.createdAt)}  last used ${when(s.lastUsedAt)}`).join("\n")
        : "No secret yet (it is revealed once, after approval).",
    };
  },
};

export const appsSecretsAdd: Command = {
  usage: "apps secrets add CLIENT_ID [--json]",
  summary:
    "Add a second secret for rotation without downtime, printed once; the current secret and every token keep working (at most two)",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { secrets, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const revealed = await secrets.addSecret(clientId, actor);
    return revealedOutput(
      revealed,
      `Added a secret to ${clientId}. Both active secrets work; retire the old one once every client uses the new one.`,
    );
  },
};

export const appsSecretsRetire: Command = {
  usage: "apps secrets retire CLIENT_ID SECRET_ID [--json]",
  summary:
    "Retire a secret: token requests with it fail with invalid_client at once; tokens already issued with it keep working until they expire",
  options: {},
  positionals: ["CLIENT_ID", "SECRET_ID"],
  async run({ args }) {
    const { secrets, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const secretId = parseWith(schemas.secretIdSchema, args[1], { "": "SECRET_ID" });
    const retired = await secrets.retireSecret(clientId, secretId, actor);
    return {
      json: { ...secretJson(retired), retired: true },
      text: `Retired ${retired.id} (…${retired.hint}) of ${clientId}: it no longer gets tokens. Tokens already issued with it work until they expire.`,
    };
  },
};

export const appsSecretsRoll: Command = {
  usage: "apps secrets roll CLIENT_ID [--json]",
  summary:
    "Compromise: one new secret, printed once; every other secret stops working and every access token of the app is void at once",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { secrets, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const revealed = await secrets.rollSecret(clientId, actor);
    return revealedOutput(
      revealed,
      `Rolled the secret of ${clientId}: every other secret stopped working and every access token of the app is void.`,
    );
  },
};
