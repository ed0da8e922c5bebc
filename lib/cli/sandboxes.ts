import { TRIGGERABLE_EVENT_TYPES } from "../schemas/events";
import { parseWith, services, type Command } from "./command";
import { sandboxJson, sandboxSecretJson, sandboxTestUserJson, sandboxTestUsersJson } from "./json";

/** `apps sandbox …`: an app's sandbox, its secret, its synthetic world and its test users. */

export const appsSandboxShow: Command = {
  usage: "apps sandbox show CLIENT_ID [--json]",
  summary: "Show an app's sandbox: its client id (sbx_…), test users, quota and when its synthetic world was built",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const [{ schemas, actor }, { getSandbox }] = await Promise.all([services(), import("../services/sandboxes")]);
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const sandbox = await getSandbox(clientId, actor);
    return {
      json: sandboxJson(sandbox),
      text: [
        `client_id:        ${sandbox.clientId}`,
        `test users:       ${sandbox.users.map((u) => `@${u.handle}`).join(", ") || "none"}`,
        `quota_per_minute: ${sandbox.quotaPerMinute}`,
        `created_at:       ${sandbox.createdAt.toISOString()}`,
        `world built:      ${sandbox.generatedAt?.toISOString() ?? "not yet (on first use)"}`,
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
    const [{ schemas, actor }, { rollSandboxSecret }] = await Promise.all([services(), import("../services/sandboxes")]);
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const rolled = await rollSandboxSecret(clientId, actor);
    return {
      json: sandboxSecretJson(rolled),
      text: [
        `client_id:     ${rolled.clientId}`,
        `client_secret: ${rolled.clientSecret}`,
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
    const [{ schemas, actor }, { resetSandbox }] = await Promise.all([services(), import("../services/sandboxes")]);
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const reset = await resetSandbox(clientId, actor);
    return {
      json: { client_id: reset.clientId, users: reset.people },
      text: `Reset ${reset.clientId}: a fresh world of ${reset.people} people.`,
    };
  },
};

export const appsSandboxTrigger: Command = {
  usage: "apps sandbox trigger CLIENT_ID EVENT_TYPE [--json]",
  summary: "Write one event of EVENT_TYPE in the app's sandbox with synthetic data; its sandbox endpoints and streams receive it",
  options: {},
  positionals: ["CLIENT_ID", "EVENT_TYPE"],
  helpDetails: ["", `EVENT_TYPE: one of ${TRIGGERABLE_EVENT_TYPES.join(", ")}.`],
  async run({ args }) {
    const [{ schemas, actor }, { triggerSandboxEvent }] = await Promise.all([services(), import("../services/sandbox-events")]);
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const { eventId } = await triggerSandboxEvent(clientId, actor, args[1] ?? "");
    return { json: { event_id: eventId }, text: `Triggered ${args[1]} in the sandbox of ${clientId}: ${eventId}.` };
  },
};

export const appsSandboxUsersList: Command = {
  usage: "apps sandbox users list CLIENT_ID [--json]",
  summary: "List the test users of an app's sandbox, oldest first",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const [{ schemas, actor }, { listSandboxTestUsers }] = await Promise.all([services(), import("../services/sandbox-users")]);
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const users = await listSandboxTestUsers(clientId, actor);
    return {
      json: sandboxTestUsersJson(clientId, users),
      text: users.length ? users.map((u) => `@${u.handle}  added ${u.createdAt.toISOString()}`).join("\n") : "No test users.",
    };
  },
};

export const appsSandboxUsersAdd: Command = {
  usage: "apps sandbox users add CLIENT_ID [--handle HANDLE] [--json]",
  summary: "Add a test user to an app's sandbox (at most 20); its generated password is printed once",
  helpDetails: [
    "Test users sign in on the hosted login page through the sandbox's client (sbx_…) only.",
    "Without --handle, a test_… handle is generated. A sandbox reset keeps its test users.",
  ],
  options: { handle: { type: "string" } },
  positionals: ["CLIENT_ID"],
  async run({ values, args }) {
    const [{ schemas, userSchemas, actor }, { addSandboxTestUser }] = await Promise.all([services(), import("../services/sandbox-users")]);
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const handle = values.handle === undefined ? undefined : parseWith(userSchemas.handleSchema, values.handle, { "": "--handle" });
    const added = await addSandboxTestUser(clientId, actor, { handle });
    return {
      json: sandboxTestUserJson(added),
      text: [
        `handle:   ${added.handle}`,
        `password: ${added.password}`,
        "Store the password now: it is shown only once and cannot be recovered.",
      ].join("\n"),
    };
  },
};

export const appsSandboxUsersRemove: Command = {
  usage: "apps sandbox users remove CLIENT_ID HANDLE [--json]",
  summary: "Remove a test user from an app's sandbox: its sign-ins and tokens stop at once",
  options: {},
  positionals: ["CLIENT_ID", "HANDLE"],
  async run({ args }) {
    const [{ schemas, userSchemas, actor }, { removeSandboxTestUser }] = await Promise.all([services(), import("../services/sandbox-users")]);
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const handle = parseWith(userSchemas.handleSchema, args[1], { "": "HANDLE" });
    await removeSandboxTestUser(clientId, actor, handle);
    return {
      json: { client_id: clientId, handle, removed: true },
      text: `Removed test user @${handle} from ${clientId}'s sandbox.`,
    };
  },
};
