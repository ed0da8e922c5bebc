import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, runCli } from "../helpers/cli";
import { newDatabase, pointAppAt } from "../helpers/server";

/**
 * "approve what was looked at": every app carries a revision that moves with
 * every stored change a reviewer sees; approvals, rejections and change decisions name the
 * revision they looked at and are refused if it moved; an edit racing an approval cannot ride it.
 */
let apps: typeof import("../../lib/services/apps") & typeof import("../../lib/services/app-review");
let users: typeof import("../../lib/services/users");
let closeDb: () => Promise<void>;
let databaseUrl: string;

type UserActor = { kind: "user"; id: number; handle: string; role: "user" | "admin"; ip?: string };
let alice: UserActor;
let admin: UserActor;

async function actorFor(handle: string): Promise<UserActor> {
  const user = await users.getUserByHandle(handle);
  return { kind: "user", id: user.id, handle: user.handle, role: user.role };
}

const PREFIX = `Revision ${Date.now().toString(36)}`;
const loginInput = (name: string) => ({
  name: `${PREFIX} ${name}`,
  description: "Signs people in.",
  type: "login" as const,
  scopes: ["svc:chat.read" as const],
  redirectUris: ["https://rev.example.com/callback"],
  postLogoutRedirectUris: [],
});

/** The refusal a stale decision gets: conflict, carrying the current revision. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; extra?: Record<string, unknown>; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e as { code: string; extra?: Record<string, unknown>; message: string },
  );
  expect(error, "the decision should have been refused").not.toBeNull();
  return error!;
}

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
  closeDb = await pointAppAt(databaseUrl);
  apps = { ...(await import("../../lib/services/apps")), ...(await import("../../lib/services/app-review")) };
  users = await import("../../lib/services/users");
  alice = await actorFor("alice");
  admin = await actorFor("admin");
});

afterAll(async () => {
  await closeDb?.();
});

describe("app revision", () => {
  it("moves with every change a reviewer sees, and a stale approval or rejection is refused", async () => {
    const created = await apps.createApp(loginInput("Stale"), { id: alice.id }, alice);
    const seen = created.revision;
    const edited = await apps.updateApp(created.clientId, { description: "Now it also posts." }, alice);
    expect(edited.revision).toBeGreaterThan(seen);

    for (const decide of [
      () => apps.approveApp(created.clientId, admin, { revision: seen }),
      () => apps.rejectApp(created.clientId, "Too vague.", admin, { revision: seen }),
    ]) {
      const error = await refusal(decide());
      expect(error.code).toBe("conflict");
      expect(error.extra).toEqual({ reason: "changed_since_review", revision: edited.revision });
      expect(error.message).toMatch(/changed since you looked/);
    }
    const still = await apps.getAppForViewer(created.clientId, admin);
    expect(still).toMatchObject({ status: "pending", revision: edited.revision });

    // The revision looked at now: the approval goes through, and moves the revision itself.
    const approved = await apps.approveApp(created.clientId, admin, { revision: edited.revision });
    expect(approved.status).toBe("approved");
    expect(approved.revision).toBeGreaterThan(edited.revision);
  });

  it("a change approval or refusal names the revision of the change looked at", async () => {
    const created = await apps.createApp(loginInput("Change"), { id: alice.id }, alice);
    await apps.approveApp(created.clientId, admin);
    const first = await apps.updateApp(created.clientId, { name: `${PREFIX} Renamed once` }, alice);
    expect(first.pendingChange?.name).toBe(`${PREFIX} Renamed once`);
    // The owner edits the waiting change after the admin opened it.
    const second = await apps.updateApp(created.clientId, { name: `${PREFIX} Renamed twice` }, alice);
    expect(second.revision).toBeGreaterThan(first.revision);

    for (const decide of [
      () => apps.approvePendingChange(created.clientId, admin, { revision: first.revision }),
      () => apps.rejectPendingChange(created.clientId, "No.", admin, { revision: first.revision }),
    ]) {
      const error = await refusal(decide());
      expect(error.extra).toEqual({ reason: "changed_since_review", revision: second.revision });
    }
    expect(await apps.getAppForViewer(created.clientId, admin)).toMatchObject({
      name: `${PREFIX} Change`,
      pendingChange: { name: `${PREFIX} Renamed twice` },
    });
    const applied = await apps.approvePendingChange(created.clientId, admin, { revision: second.revision });
    expect(applied).toMatchObject({ name: `${PREFIX} Renamed twice`, pendingChange: null });
  });

  it("bulk approval refuses the app that changed since the queue showed it, and approves the rest", async () => {
    const a = await apps.createApp(loginInput("Bulk A"), { id: alice.id }, alice);
    const b = await apps.createApp(loginInput("Bulk B"), { id: alice.id }, alice);
    await apps.updateApp(b.clientId, { redirectUris: ["https://elsewhere.example.net/cb"] }, alice);
    const result = await apps.approveApps(
      [
        { clientId: a.clientId, revision: a.revision },
        { clientId: b.clientId, revision: b.revision },
      ],
      admin,
    );
    expect(result.approved.map((v) => v.clientId)).toEqual([a.clientId]);
    expect(result.failed).toEqual([{ clientId: b.clientId, message: expect.stringMatching(/changed since you looked/) }]);
    expect((await apps.getAppForViewer(b.clientId, admin)).status).toBe("pending");
  });

  it("an edit racing an approval never rides it: the approved configuration is exactly the one reviewed", async () => {
    let approvedRuns = 0;
    let refusedRuns = 0;
    for (let run = 0; run < 25; run++) {
      const app = await apps.createApp(loginInput(`Race ${run}`), { id: alice.id }, alice);
      const reviewed = await apps.getAppForViewer(app.clientId, admin);
      const edit = apps.updateApp(
        app.clientId,
        { name: `${PREFIX} Sneaky ${run}`, redirectUris: ["https://rev.example.com/callback", "https://attacker.example.org/cb"] },
        alice,
      );
      // Staggered a little differently each run, so both orders (and the overlap) occur.
      await new Promise((resolve) => setTimeout(resolve, run % 5));
      const approval = apps.approveApp(app.clientId, admin, { revision: reviewed.revision }).then(
        () => "approved" as const,
        (e: { extra?: { reason?: string } }) => {
          if (e.extra?.reason !== "changed_since_review") throw e;
          return "refused" as const;
        },
      );
      const [outcome] = await Promise.all([approval, edit]);
      const now = await apps.getAppForViewer(app.clientId, admin);
      if (outcome === "approved") {
        approvedRuns++;
        expect(now.status).toBe("approved");
        // What runs is what the admin looked at; the edit waits for review.
        expect({ name: now.name, redirectUris: now.redirectUris }).toEqual({
          name: reviewed.name,
          redirectUris: reviewed.redirectUris,
        });
        expect(now.pendingChange).toMatchObject({
          name: `${PREFIX} Sneaky ${run}`,
          redirectUris: ["https://rev.example.com/callback", "https://attacker.example.org/cb"],
        });
      } else {
        refusedRuns++;
        expect(now).toMatchObject({ status: "pending", name: `${PREFIX} Sneaky ${run}` });
      }
    }
    expect(approvedRuns + refusedRuns).toBe(25);
  });
});

describe("the CLI's review decisions", () => {
  it("take --expect-revision: a stale one exits 1 with changed_since_review and the current revision", async () => {
    const created = await apps.createApp(loginInput("CLI"), { id: alice.id }, alice);
    const shown = await cliJson<{ revision: number }>(databaseUrl, ["apps", "show", created.clientId]);
    expect(shown.revision).toBe(created.revision);
    const listed = await cliJson<{ apps: { client_id: string; revision: number }[] }>(databaseUrl, ["apps", "list"]);
    expect(listed.apps.find((a) => a.client_id === created.clientId)?.revision).toBe(created.revision);

    const edited = await apps.updateApp(created.clientId, { description: "Changed after the operator looked." }, alice);
    for (const command of [
      ["apps", "approve", created.clientId],
      ["apps", "reject", created.clientId, "--reason", "No."],
    ]) {
      const stale = await runCli(databaseUrl, [...command, "--expect-revision", String(shown.revision), "--json"]);
      expect(stale.code).toBe(1);
      expect(JSON.parse(stale.stderr)).toMatchObject({ error: "changed_since_review", revision: edited.revision });
    }
    expect((await apps.getAppForViewer(created.clientId, admin)).status).toBe("pending");

    // Without the flag: acts on the current revision and says which.
    const approved = await cliJson<{ status: string; reviewed_revision: number }>(databaseUrl, ["apps", "approve", created.clientId]);
    expect(approved).toMatchObject({ status: "approved", reviewed_revision: edited.revision });

    // A change: approve|reject with a stale revision is refused the same way.
    const requested = await apps.updateApp(created.clientId, { name: `${PREFIX} CLI renamed` }, alice);
    await apps.updateApp(created.clientId, { name: `${PREFIX} CLI renamed again` }, alice);
    for (const command of [
      ["apps", "changes", "approve", created.clientId],
      ["apps", "changes", "reject", created.clientId, "--reason", "No."],
    ]) {
      const stale = await runCli(databaseUrl, [...command, "--expect-revision", String(requested.revision), "--json"]);
      expect(stale.code).toBe(1);
      expect(JSON.parse(stale.stderr)).toMatchObject({ error: "changed_since_review", revision: requested.revision + 1 });
    }
    const current = (await apps.getAppForViewer(created.clientId, admin)).revision;
    const applied = await cliJson<{ name: string; reviewed_revision: number }>(databaseUrl, [
      "apps", "changes", "approve", created.clientId, "--expect-revision", String(current),
    ]);
    expect(applied).toMatchObject({ name: `${PREFIX} CLI renamed again`, reviewed_revision: current });
  });
});

describe("redirect URIs of an approved login app (issue 24 point 4)", () => {
  it("refuses a change that would leave no applied redirect URI while new ones wait, naming the field", async () => {
    const app = await apps.createApp(loginInput("Reachable"), { id: alice.id }, alice);
    await apps.approveApp(app.clientId, admin);
    const error = await refusal(apps.updateApp(app.clientId, { redirectUris: ["https://new.example.com/cb"] }, alice));
    expect(error).toMatchObject({ code: "invalid_request", fields: { redirectUris: expect.stringMatching(/at least one approved redirect URI/) } });
    const after = await apps.getAppForViewer(app.clientId, admin);
    expect(after).toMatchObject({ redirectUris: ["https://rev.example.com/callback"], pendingChange: null });

    // Adding first, then dropping the old one once the new one is approved, works.
    await apps.updateApp(app.clientId, { redirectUris: ["https://rev.example.com/callback", "https://new.example.com/cb"] }, alice);
    await apps.approvePendingChange(app.clientId, admin);
    const moved = await apps.updateApp(app.clientId, { redirectUris: ["https://new.example.com/cb"] }, alice);
    expect(moved).toMatchObject({ redirectUris: ["https://new.example.com/cb"], pendingChange: null });
  });
});
