import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * "Secret ready" on My apps: the owner's list says which approved API clients still
 * hold an unrevealed first secret, by the same rule the reveal uses, and listing never creates or
 * reveals one.
 */
let databaseUrl: string;
let apps: typeof import("../../lib/services/apps") & typeof import("../../lib/services/app-review");
let secrets: typeof import("../../lib/services/app-secrets");
let users: typeof import("../../lib/services/users");
let closeDb: () => Promise<void>;

type UserActor = { kind: "user"; id: number; handle: string; role: "user" | "admin" };
let alice: UserActor;
let admin: UserActor;

async function actorFor(handle: string): Promise<UserActor> {
  const user = await users.getUserByHandle(handle);
  return { kind: "user", id: user.id, handle: user.handle, role: user.role };
}

async function secretRows(clientId: string): Promise<number> {
  const rows = await query<{ n: string }>(
    databaseUrl,
    `SELECT count(*) AS n FROM "ClientSecret" s JOIN "Application" a ON a.id = s."applicationId" WHERE a."clientId" = $1`,
    [clientId],
  );
  return Number(rows[0]!.n);
}

/** What My apps shows for this app: its "secret ready" flag, read through the owner's listing. */
async function readyOnMyApps(clientId: string): Promise<boolean> {
  const listed = (await apps.listAppsForOwner(alice.id)).find((a) => a.clientId === clientId);
  if (!listed) throw new Error(`${clientId} is not on alice's list`);
  return secrets.isSecretWaiting(listed);
}

const apiInput = {
  name: "Secret ready check",
  description: "",
  type: "api" as const,
  scopes: ["svc:chat.read" as const],
  redirectUris: [],
  postLogoutRedirectUris: [],
};

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  closeDb = await pointAppAt(databaseUrl);
  apps = { ...(await import("../../lib/services/apps")), ...(await import("../../lib/services/app-review")) };
  secrets = await import("../../lib/services/app-secrets");
  users = await import("../../lib/services/users");
  alice = await actorFor("alice");
  admin = await actorFor("admin");
});

afterAll(async () => {
  await closeDb?.();
});

describe("secret ready on My apps", () => {
  it("is shown from approval until the owner's first view, and listing reveals nothing", async () => {
    const app = await apps.createApp(apiInput, { id: alice.id }, alice);
    expect(await readyOnMyApps(app.clientId)).toBe(false); // pending

    await apps.approveApp(app.clientId, admin);
    expect(await readyOnMyApps(app.clientId)).toBe(true);
    expect(await readyOnMyApps(app.clientId)).toBe(true); // asking twice changes nothing
    expect(await secretRows(app.clientId)).toBe(0);

    // An admin looking at the app does not collect the owner's secret.
    expect(await secrets.revealSecretOnce(app.clientId, admin)).toBeNull();
    expect(await readyOnMyApps(app.clientId)).toBe(true);

    expect(await secrets.revealSecretOnce(app.clientId, alice)).not.toBeNull();
    expect(await readyOnMyApps(app.clientId)).toBe(false);
    expect(await secretRows(app.clientId)).toBe(1);
  });

  it("follows the reveal rule: never for a login client, not while suspended", async () => {
    const login = await apps.createApp(
      { ...apiInput, type: "login", redirectUris: ["http://localhost:5173/cb"] },
      { id: alice.id },
      alice,
    );
    await apps.approveApp(login.clientId, admin);
    expect(await readyOnMyApps(login.clientId)).toBe(false);

    const api = await apps.createApp(apiInput, { id: alice.id }, alice);
    await apps.approveApp(api.clientId, admin);
    await apps.suspendApp(api.clientId, "Too many requests.", admin);
    expect(await readyOnMyApps(api.clientId)).toBe(false);
    expect(await secrets.revealSecretOnce(api.clientId, alice)).toBeNull();
    await apps.reinstateApp(api.clientId, admin);
    expect(await readyOnMyApps(api.clientId)).toBe(true);
  });
});
