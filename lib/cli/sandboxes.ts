import { parseWith, services, type Command } from "./command";

/** `apps sandbox …` (issue 26): an app's sandbox, its secret and its synthetic world. */

export const appsSandboxShow: Command = {
  usage: "apps sandbox show CLIENT_ID [--json]",
  summary: "Show an app's sandbox: its client id (sbx_…), quota and when its synthetic world was built",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { sandboxes, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const view = await sandboxes.getSandbox(clientId, actor);
    return {
      json: view,
      text: [
        `client_id:        ${view.client_id}`,
        `quota_per_minute: ${view.quota_per_minute}`,
        `created_at:       ${view.created_at}`,
        `world built:      ${view.generated_at ?? "not yet (on first use)"}`,
      ].join("\n"),
    };
  },
};

export const appsSandboxSecretRoll: Command = {
  usage: "apps sandbox secret roll CLIENT_ID [--json]",
  summary: "A new sandbox secret for an API client, printed once; the old one and every sandbox token stop working at once",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { sandboxes, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const rolled = await sandboxes.rollSandboxSecret(clientId, actor);
    return {
      json: rolled,
      text: [
        `client_id:     ${rolled.client_id}`,
        `client_secret: ${rolled.client_secret}`,
        "Store the secret now: it is shown only once and cannot be recovered.",
      ].join("\n"),
    };
  },
};

export const appsSandboxReset: Command = {
  usage: "apps sandbox reset CLIENT_ID [--json]",
  summary: "Delete the sandbox's synthetic world (its people, chat, everything written there) and build it again",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { sandboxes, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const reset = await sandboxes.resetSandbox(clientId, actor);
    return { json: reset, text: `Reset ${reset.client_id}: a fresh world of ${reset.users} people.` };
  },
};
