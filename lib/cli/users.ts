import { parseWith, services, UsageError, type Command } from "./command";
import { connectedAppJson, createdUserJson, signInSessionJson, userStatusJson } from "./json";

/** `users …`: accounts, their switches, and the apps each person authorized. */

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

export const usersCreate: Command = {
  usage: "users create --handle H (--password P | --password-stdin) [--admin] [--display-name NAME] [--json]",
  summary: "Create an account that can sign in (--password-stdin keeps the password out of shell history)",
  options: {
    handle: { type: "string" },
    password: { type: "string" },
    "password-stdin": { type: "boolean" },
    admin: { type: "boolean" },
    "display-name": { type: "string" },
  },
  positionals: [],
  async run({ values }) {
    const { users, userSchemas, actor } = await services();
    if (values.handle === undefined) throw new UsageError("--handle is required");
    if (values.password === undefined && !values["password-stdin"]) {
      throw new UsageError("--password or --password-stdin is required");
    }
    if (values.password !== undefined && values["password-stdin"]) {
      throw new UsageError("give either --password or --password-stdin, not both");
    }
    const password = values["password-stdin"] ? await readStdin() : values.password;
    const input = parseWith(
      userSchemas.createUserSchema,
      { handle: values.handle, password, admin: values.admin === true, displayName: values["display-name"] },
      { handle: "--handle", password: "--password", displayName: "--display-name" },
    );
    const user = await users.createUser(input, actor);
    return {
      json: createdUserJson(user),
      text: `Created ${user.role} ${user.handle} (id ${user.id}).`,
    };
  },
};

function userSwitch(verb: "disable" | "enable" | "mute" | "unmute"): Command {
  return {
    usage: `users ${verb} HANDLE [--json]`,
    summary: {
      disable: "Disable an account: it can no longer sign in, and API calls with its tokens answer 403 forbidden at once",
      enable: "Re-enable a disabled account (its unexpired tokens work again)",
      mute: "Mute an account: it can no longer post to the global chat",
      unmute: "Unmute an account",
    }[verb],
    options: {},
    positionals: ["HANDLE"],
    async run({ args }) {
      const { users, userSchemas, actor } = await services();
      const handle = parseWith(userSchemas.handleSchema, args[0], { "": "HANDLE" });
      const user =
        verb === "disable" || verb === "enable"
          ? await users.setUserDisabled(handle, verb === "disable", actor)
          : await users.setUserMuted(handle, verb === "mute", actor);
      return {
        json: userStatusJson(user),
        text: `${user.handle}: ${user.disabled ? "disabled" : "enabled"}, ${user.muted ? "muted" : "not muted"}`,
      };
    },
  };
}

export const usersDisable = userSwitch("disable");
export const usersEnable = userSwitch("enable");
export const usersMute = userSwitch("mute");
export const usersUnmute = userSwitch("unmute");

export const usersApps: Command = {
  usage: "users apps HANDLE [--json]",
  summary: "List the login clients a person has authorized (their Connected apps), most recently used first",
  options: {},
  positionals: ["HANDLE"],
  async run({ args }) {
    const { connectedApps, userSchemas, actor } = await services();
    const handle = parseWith(userSchemas.handleSchema, args[0], { "": "HANDLE" });
    const connected = await connectedApps.listConnectedApps(handle, actor);
    return {
      json: connected.map(connectedAppJson),
      text:
        connected.length === 0
          ? `${handle} has not authorized any app.`
          : connected
              .map((app) => `${app.clientId}  ${app.name}  ${app.scopes.join(" ")}  last used ${app.lastUsedAt?.toISOString() ?? "never"}`)
              .join("\n"),
    };
  },
};

export const usersRevokeApp: Command = {
  usage: "users revoke-app HANDLE CLIENT_ID [--json]",
  summary:
    "Take back a person's authorization of an app: consent, grants and refresh tokens are removed and their access tokens for it stop working at once; the next sign-in asks for consent again",
  options: {},
  positionals: ["HANDLE", "CLIENT_ID"],
  async run({ args }) {
    const { connectedApps, schemas, userSchemas, actor } = await services();
    const handle = parseWith(userSchemas.handleSchema, args[0], { "": "HANDLE" });
    const clientId = parseWith(schemas.anyClientIdSchema, args[1], { "": "CLIENT_ID" });
    const result = await connectedApps.revokeConnectedApp(handle, clientId, actor);
    return {
      json: { handle, client_id: result.clientId, was_connected: result.wasConnected, revoked_grants: result.revokedGrants },
      text: result.wasConnected
        ? `Revoked ${handle}'s access to ${clientId} (${result.revokedGrants} grant and token records removed; access tokens void).`
        : `${handle} had not authorized ${clientId}; any tokens of theirs for it are void now.`,
    };
  },
};

/** The HANDLE argument and its account (`user_not_found` when there is none). */
async function namedUser(args: string[]) {
  const { users, userSchemas } = await services();
  const handle = parseWith(userSchemas.handleSchema, args[0], { "": "HANDLE" });
  return { handle, user: await users.getUserByHandle(handle) };
}

/** What second factors a person has (never the factors themselves). */
export const usersMfa: Command = {
  usage: "users mfa HANDLE [--json]",
  summary: "Show a person's second factors: passkeys, an authenticator app (TOTP), recovery codes left",
  options: {},
  positionals: ["HANDLE"],
  async run({ args }) {
    const { handle, user } = await namedUser(args);
    const { getSecondFactorStatus } = await import("../services/second-factors");
    const status = await getSecondFactorStatus(user.id);
    return {
      json: { passkeys: status.passkeys, totp: status.totp, recovery_codes_left: status.recoveryCodesLeft },
      text: `${handle}: ${status.passkeys} passkeys, authenticator app ${status.totp ? "on" : "off"}, ${status.recoveryCodesLeft} recovery codes left`,
    };
  },
};

/** A person lost their factor: remove every factor, end their sign-in sessions, audited, notified. */
export const usersMfaReset: Command = {
  usage: 'users mfa reset HANDLE --reason "…" [--json]',
  summary: "Remove all of a person's second factors and recovery codes and end their sign-in sessions (audited with the reason; the person is notified)",
  options: { reason: { type: "string" } },
  positionals: ["HANDLE"],
  async run({ args, values }) {
    const { userSchemas, actor } = await services();
    const handle = parseWith(userSchemas.handleSchema, args[0], { "": "HANDLE" });
    const reason = typeof values.reason === "string" ? values.reason.trim() : "";
    if (!reason) throw new UsageError("--reason is required (it goes into the audit log)");
    if (reason.length > 500) throw new UsageError("--reason: at most 500 characters");
    const { resetSecondFactors } = await import("../services/second-factors");
    const result = await resetSecondFactors(handle, reason, actor);
    return {
      json: { handle, factors_removed: result.removed, recovery_codes_removed: result.recoveryCodesRemoved, sessions_ended: result.sessionsEnded },
      text: `${handle}: ${result.removed} second factors and ${result.recoveryCodesRemoved} recovery codes removed, ${result.sessionsEnded} sign-in sessions ended.`,
    };
  },
};

/** Where a person is signed in (their sign-in sessions at the sign-in service). */
export const usersSessions: Command = {
  usage: "users sessions HANDLE [--json]",
  summary: "List a person's sign-in sessions, most recently active first (the ids are what users sign-out --session takes)",
  options: {},
  positionals: ["HANDLE"],
  async run({ args }) {
    const { handle, user } = await namedUser(args);
    const { listSignInSessions } = await import("../services/sign-in-sessions");
    const sessions = await listSignInSessions(user.id);
    return {
      json: sessions.map(signInSessionJson),
      text:
        sessions.length === 0
          ? `${handle} is not signed in anywhere.`
          : sessions
              .map((s) => `${s.id}  since ${s.createdAt.toISOString()}  last active ${s.lastActiveAt.toISOString()}  ${s.userAgent || "(no user agent)"}`)
              .join("\n"),
    };
  },
};

/** End a person's sign-in sessions (all, or one), at the sign-in service and in the portal. */
export const usersSignOut: Command = {
  usage: "users sign-out HANDLE [--session ID] [--json]",
  summary:
    "End a person's sign-in sessions (or the one --session names) at the sign-in service and in the portal, at once; apps they allowed keep their access (users revoke-app takes that back)",
  options: { session: { type: "string" } },
  positionals: ["HANDLE"],
  async run({ args, values }) {
    const session = values.session;
    if (session !== undefined && (typeof session !== "string" || !/^[A-Za-z0-9_-]{16}$/.test(session))) {
      throw new UsageError("--session: a session id as users sessions lists it");
    }
    const { actor } = await services();
    const { handle, user } = await namedUser(args);
    const { signOutSessions } = await import("../services/sign-in-sessions");
    const result = await signOutSessions(user, session ? { session } : { allExcept: null }, actor);
    return {
      json: { handle, sessions_ended: result.ended },
      text: `${handle}: ${result.ended} sign-in ${result.ended === 1 ? "session" : "sessions"} ended.`,
    };
  },
};
