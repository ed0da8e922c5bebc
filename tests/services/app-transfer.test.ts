import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * "ownership changes are reviewed identity changes": a transfer is an offer the
 * new owner accepts or declines; for an app never approved, acceptance applies it; for an approved
 * app the new owner waits for review like a new name, and the consent and device pages keep the
 * approved owner meanwhile. Both people are notified and every step is audited.
 */
let databaseUrl: string;
let apps: typeof import("../../lib/services/apps") & typeof import("../../lib/services/app-review");
let members: typeof import("../../lib/services/app-members");
let closeDb: () => Promise<void>;

type Actor = import("../../lib/services/actor").Actor;
const operator: Actor = { kind: "system", name: "test" };
const ids: Record<string, number> = {};
const as = (handle: string): Actor => ({ kind: "user", id: ids[handle]!, handle, role: "user" });
const TAG = `tr${Date.now().toString(36)}`;

async function newApp(name: string, approve: boolean): Promise<string> {
  const app = await apps.createApp(
    {
      name: `${TAG} ${name}`,
      description: "Transfer test",
      type: "login",
      scopes: [],
      redirectUris: ["https://transfer.example.com/cb"],
      postLogoutRedirectUris: [],
    },
    { id: ids.tr_owner! },
    as("tr_owner"),
  );
  if (approve) await apps.approveApp(app.clientId, operator);
  return app.clientId;
}

async function notes(handle: string): Promise<string[]> {
  const rows = await query<{ message: string }>(
    databaseUrl,
    `SELECT message FROM "Notification" WHERE "userId" = $1 AND message LIKE $2 ORDER BY id`,
    [ids[handle], `%${TAG}%`],
  );
  return rows.map((r) => r.message);
}

async function auditOf(clientId: string): Promise<string[]> {
  const rows = await query<{ action: string; outcome: string }>(
    databaseUrl,
    `SELECT action, outcome FROM "AuditLog" WHERE "targetId" = $1 AND action LIKE 'app.transfer%' ORDER BY id`,
    [clientId],
  );
  return rows.map((r) => `${r.action}:${r.outcome}`);
}

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  closeDb = await pointAppAt(databaseUrl);
  apps = { ...(await import("../../lib/services/apps")), ...(await import("../../lib/services/app-review")) };
  members = await import("../../lib/services/app-members");
  const users = await import("../../lib/services/users");
  for (const handle of ["tr_owner", "tr_next", "tr_stranger"]) {
    ids[handle] = (await users.createUser({ handle, password: "transfer passphrase 1", displayName: `${handle} person`, admin: false }, operator)).id;
  }
});

afterAll(async () => {
  await closeDb?.();
});

describe("app transfers", () => {
  it("wait for the new owner's acceptance; for an app never approved, acceptance applies them", async () => {
    const clientId = await newApp("Pending", false);
    const before = await apps.getAppForViewer(clientId, operator);
    const { app, outcome } = await members.requestTransfer(clientId, "tr_next", as("tr_owner"));
    expect(outcome).toBe("awaiting_acceptance");
    expect(app).toMatchObject({ owner: { handle: "tr_owner" }, transferTo: { handle: "tr_next" } });
    expect(app.revision).toBeGreaterThan(before.revision);
    expect((await members.listTransferOffers(ids.tr_next!)).map((a) => a.clientId)).toEqual([clientId]);
    expect(await notes("tr_next")).toEqual([expect.stringMatching(/offers you the app .*Accept or decline/)]);

    // Only the person offered answers: a stranger does not even learn the app exists; the owner cannot accept for them.
    await expect(members.answerTransfer(clientId, true, as("tr_stranger"))).rejects.toMatchObject({ code: "not_found" });
    await expect(members.answerTransfer(clientId, true, as("tr_owner"))).rejects.toMatchObject({ code: "conflict" });
    expect((await apps.getAppForViewer(clientId, operator)).owner.handle).toBe("tr_owner");

    const accepted = await members.answerTransfer(clientId, true, as("tr_next"));
    expect(accepted.outcome).toBe("applied");
    expect(accepted.app).toMatchObject({ owner: { handle: "tr_next" }, transferTo: null });
    expect(accepted.app.members.map((m) => [m.handle, m.role])).toEqual([["tr_owner", "admin"]]);
    expect(await notes("tr_owner")).toEqual(expect.arrayContaining([expect.stringMatching(/@tr_next now owns your app/)]));
    expect(await auditOf(clientId)).toEqual([
      "app.transfer.request:ok",
      "app.transfer.accept:denied",
      "app.transfer.accept:denied",
      "app.transfer.accept:ok",
    ]);
  });

  it("of an approved app wait for review after acceptance, and the consent page keeps the approved owner meanwhile", async () => {
    const clientId = await newApp("Approved", true);
    await members.requestTransfer(clientId, "tr_next", as("tr_owner"));
    const { outcome, app } = await members.answerTransfer(clientId, true, as("tr_next"));
    expect(outcome).toBe("awaiting_review");
    expect(app).toMatchObject({ owner: { handle: "tr_owner" }, transferTo: null, pendingChange: { owner: { handle: "tr_next" } } });
    // The consent and device pages read the app's identity here: "built by" the approved owner.
    expect((await apps.findAppIdentity(clientId))?.owner.handle).toBe("tr_owner");
    // An edit meanwhile keeps the new owner waiting.
    await apps.updateApp(clientId, { name: `${TAG} Approved renamed` }, as("tr_owner"));
    expect((await apps.getAppForViewer(clientId, operator)).pendingChange).toMatchObject({ owner: { handle: "tr_next" }, name: `${TAG} Approved renamed` });

    const approved = await apps.approvePendingChange(clientId, operator);
    expect(approved).toMatchObject({ owner: { handle: "tr_next" }, name: `${TAG} Approved renamed`, pendingChange: null });
    expect((await apps.findAppIdentity(clientId))?.owner.handle).toBe("tr_next");
    expect(await notes("tr_next")).toEqual(expect.arrayContaining([expect.stringMatching(/You now own the app/)]));
  });

  it("a refused change of owner leaves the approved owner; a declined or withdrawn offer changes nothing", async () => {
    const clientId = await newApp("Refused", true);
    await members.requestTransfer(clientId, "tr_next", as("tr_owner"));
    await members.answerTransfer(clientId, true, as("tr_next"));
    await apps.rejectPendingChange(clientId, "Not a known developer.", operator);
    expect((await apps.getAppForViewer(clientId, operator)).owner.handle).toBe("tr_owner");
    expect(await notes("tr_next")).toEqual(expect.arrayContaining([expect.stringMatching(/transfer .* was not approved: Not a known developer/)]));

    await members.requestTransfer(clientId, "tr_next", as("tr_owner"));
    expect((await members.answerTransfer(clientId, false, as("tr_next"))).outcome).toBe("declined");
    expect(await apps.getAppForViewer(clientId, operator)).toMatchObject({ owner: { handle: "tr_owner" }, transferTo: null, pendingChange: null });
    expect(await notes("tr_owner")).toEqual(expect.arrayContaining([expect.stringMatching(/@tr_next declined/)]));

    await members.requestTransfer(clientId, "tr_next", as("tr_owner"));
    await members.cancelTransfer(clientId, as("tr_owner"));
    await expect(members.answerTransfer(clientId, true, as("tr_next"))).rejects.toMatchObject({ code: "not_found" });
    expect((await apps.getAppForViewer(clientId, operator)).owner.handle).toBe("tr_owner");
  });
});
