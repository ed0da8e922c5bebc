import { parseWith, services, type Command } from "./command";
import { unix } from "./json";

/** How the CLI names a member's role in its text output. */
const ROLE_WORDS = { admin: "a team admin", viewer: "a viewer" } as const;

/** `apps members …`: an app's team. `apps transfer` is in apps.ts. */

export const appsMembersList: Command = {
  usage: "apps members list CLIENT_ID [--json]",
  summary: "List an app's team: the owner, team admins (manage all but delete/transfer) and viewers (read-only)",
  options: {},
  positionals: ["CLIENT_ID"],
  async run({ args }) {
    const { members, schemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const team = await members.listMembers(clientId, actor);
    const rows = [
      { handle: team.owner.handle, role: "owner", added_at: null as number | null },
      ...team.members.map((m) => ({ handle: m.handle, role: m.role as string, added_at: unix(m.addedAt) })),
    ];
    return { json: rows, text: rows.map((r) => `${r.handle}  ${r.role}`).join("\n") };
  },
};

export const appsMembersAdd: Command = {
  usage: "apps members add CLIENT_ID HANDLE [--role admin|viewer] [--json]",
  summary: "Add a person to an app's team (default role viewer); for someone on the team already, change their role",
  options: { role: { type: "string" } },
  positionals: ["CLIENT_ID", "HANDLE"],
  async run({ values, args }) {
    const { members, schemas, userSchemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const handle = parseWith(userSchemas.handleSchema, args[1], { "": "HANDLE" });
    const role = parseWith(schemas.memberRoleSchema, values.role ?? "viewer", { "": "--role" });
    const { member, added } = await members.setMember(clientId, handle, role, actor);
    return {
      json: { client_id: clientId, handle: member.handle, role: member.role, added },
      text: `${added ? "Added" : "Changed"}: @${member.handle} is ${ROLE_WORDS[member.role]} of ${clientId}`,
    };
  },
};

export const appsMembersRemove: Command = {
  usage: "apps members remove CLIENT_ID HANDLE [--json]",
  summary: "Remove a person from an app's team",
  options: {},
  positionals: ["CLIENT_ID", "HANDLE"],
  async run({ args }) {
    const { members, schemas, userSchemas, actor } = await services();
    const clientId = parseWith(schemas.clientIdSchema, args[0], { "": "CLIENT_ID" });
    const handle = parseWith(userSchemas.handleSchema, args[1], { "": "HANDLE" });
    const { removed, rollSecrets } = await members.removeMember(clientId, handle, actor);
    // A team admin could read the app's client secrets; they may have kept one.
    const advice = rollSecrets
      ? `@${handle} could see this app's client secrets: roll them (platform apps secrets roll ${clientId}).`
      : null;
    return {
      json: { client_id: clientId, handle, removed, ...(advice ? { roll_secrets: true, advice } : {}) },
      text: [removed ? `Removed @${handle} from ${clientId}` : `@${handle} was not on ${clientId}'s team`, ...(advice ? [advice] : [])].join("\n"),
    };
  },
};
