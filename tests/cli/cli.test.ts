import { CURRENT_HASH_PATTERN } from "../../lib/crypto/passwords";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureDatabase, findFreePort, startEmbeddedPostgres } from "../../lib/database/embedded";
import { createAppSchema } from "../../lib/schemas/apps";
import { runCli, type CliRun } from "../helpers/cli";
import { query } from "../helpers/db";
import { newDatabase } from "../helpers/server";

/** The operator CLI of PRODUCT.md, run as a real child process the way `npm run platform --` does. */
// Each test spawns several CLI processes (~0.7 s of start-up each, far more on a busy
// 2-core machine); the generous bound is about load, not about what is being tested.
vi.setConfig({ testTimeout: 300_000 });
let databaseUrl: string;

type Run = CliRun;

/** The CLI against this file's database, as `npm run platform --` runs it. */
function cli(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<Run> {
  return runCli(databaseUrl, args, options);
}

/** A failed command: non-zero exit, nothing on stdout, exactly one line on stderr. */
function expectOneLineError(run: Run, exitCode: number, pattern: RegExp): void {
  expect(run.code, run.stderr).toBe(exitCode);
  expect(run.stdout).toBe("");
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

beforeAll(async () => {
  databaseUrl = await newDatabase({ seed: true });
});

describe("help", () => {
  it("lists every command without touching the database", async () => {
    const run = await cli(["--help"], { env: { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" } });
    expect(run.code).toBe(0);
    for (const command of ["apps create", "apps approve", "apps reject", "apps suspend", "apps list", "apps secrets list", "apps secrets add", "apps secrets retire", "apps secrets roll", "users create", "users disable", "users enable", "users mute", "users unmute", "users apps", "users revoke-app", "apps update", "apps changes approve", "apps changes reject", "apps members list", "apps members add", "apps members remove", "apps transfer", "apps usage", "apps requests", "usage retention", "apps show", "apps limit"]) {
      expect(run.stdout).toContain(command);
    }
    const sub = await cli(["apps", "create", "--help"], { env: { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" } });
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain("--redirect-uri");
    expect(sub.stdout).toContain("svc:chat.read");
  });
});

describe("apps", () => {
  it("create --approve prints an API client's secret once and stores only its hash", async () => {
    const run = await cli(["apps", "create", "--name", "Ops bot", "--type", "api", "--owner", "alice", "--scope", "svc:chat.read", "--scope", "svc:directory.read", "--approve", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    const out = JSON.parse(run.stdout) as { client_id: string; status: string; client_secret: string; sandbox: { client_id: string; client_secret: string } };
    expect(Object.keys(out).sort()).toEqual(["client_id", "client_secret", "sandbox", "status"]);
    // The sandbox's credentials, its secret shown once too and stored only as a hash.
    expect(out.sandbox).toEqual({ client_id: `sbx_${out.client_id}`, client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const [sandbox] = await query<{ secretHash: string }>(databaseUrl, `SELECT "secretHash" FROM "Sandbox" WHERE "clientId" = $1`, [out.sandbox.client_id]);
    expect(sandbox!.secretHash).toBe(createHash("sha256").update(out.sandbox.client_secret).digest("hex"));
    expect(out.client_id).toMatch(/^api_/);
    expect(out.status).toBe("approved");
    const [row] = await query<{ secretHash: string; scopes: string[]; owner: string }>(
      databaseUrl,
      `SELECT s.hash AS "secretHash", a.scopes, u.handle AS owner
       FROM "Application" a JOIN "User" u ON u.id = a."ownerId" JOIN "ClientSecret" s ON s."applicationId" = a.id
       WHERE "clientId" = $1`,
      [out.client_id],
    );
    expect(row).toEqual({
      secretHash: createHash("sha256").update(out.client_secret).digest("hex"),
      scopes: ["svc:chat.read", "svc:directory.read"],
      owner: "alice",
    });
    // The secret itself is nowhere in the database (audit log included).
    const leaks = await query(
      databaseUrl,
      `SELECT 1 FROM "Application" a, "AuditLog" l, "ClientSecret" s
       WHERE a::text LIKE '%' || $1 || '%' OR l::text LIKE '%' || $1 || '%' OR s::text LIKE '%' || $1 || '%'`,
      [out.client_secret],
    );
    expect(leaks).toEqual([]);
    const sandboxLeaks = await query(
      databaseUrl,
      `SELECT 1 FROM "Sandbox" b, "AuditLog" l WHERE b::text LIKE '%' || $1 || '%' OR l::text LIKE '%' || $1 || '%'`,
      [out.sandbox.client_secret],
    );
    expect(sandboxLeaks).toEqual([]);

    // Approving again does not reveal anything: the secret was shown once.
    const again = await cli(["apps", "approve", out.client_id, "--json"]);
    expect(again.code).toBe(1);
    expect(again.stdout).not.toContain(out.client_secret);
    expect(again.stderr).not.toContain(out.client_secret);
  });

  it("create prints human-readable output with the secret and a warning", async () => {
    const run = await cli(["apps", "create", "--name", "Human", "--type", "api", "--owner", "bob", "--approve"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/client_id: api_[0-9A-Za-z]{20}/);
    expect(run.stdout).toMatch(/client_secret: [A-Za-z0-9_-]{43}/);
    expect(run.stdout).toMatch(/shown only once/);
  });

  it("a login client never gets a secret; a pending API client not yet", async () => {
    const login = await cli([
      "apps", "create", "--name", "SPA", "--type", "login", "--owner", "carol",
      "--redirect-uri", "http://localhost:5173/callback", "--redirect-uri", "https://spa.example/callback",
      "--post-logout-redirect-uri", "https://spa.example/", "--approve", "--json",
    ]);
    expect(login.code, login.stderr).toBe(0);
    // A login client's sandbox has no secret.
    const loginOut = JSON.parse(login.stdout) as { client_id: string };
    expect(loginOut).toEqual({ client_id: expect.stringMatching(/^app_/), status: "approved", sandbox: { client_id: `sbx_${loginOut.client_id}` } });
    const [row] = await query<{ redirectUris: string[]; postLogoutRedirectUris: string[]; secrets: number }>(
      databaseUrl,
      `SELECT "redirectUris", "postLogoutRedirectUris", (SELECT count(*)::int FROM "ClientSecret" s WHERE s."applicationId" = a.id) AS secrets
       FROM "Application" a WHERE "clientId" = $1`,
      [JSON.parse(login.stdout).client_id],
    );
    expect(row).toEqual({
      redirectUris: ["http://localhost:5173/callback", "https://spa.example/callback"],
      postLogoutRedirectUris: ["https://spa.example/"],
      secrets: 0,
    });

    const pending = await cli(["apps", "create", "--name", "Later", "--type", "api", "--owner", "alice", "--json"]);
    // Pending: no live secret yet, but the sandbox works from the start.
    expect(JSON.parse(pending.stdout)).toEqual({
      client_id: expect.stringMatching(/^api_/),
      status: "pending",
      sandbox: { client_id: expect.stringMatching(/^sbx_api_/), client_secret: expect.any(String) },
    });
  });

  it("refuses user-only scopes for an API client with the portal's message (one schema), and creates nothing", async () => {
    // The portal's form (zodResolver) and its server action parse this same schema.
    const portal = createAppSchema.safeParse({ name: "Scoped bot", type: "api", scopes: ["svc:chat.read", "svc:stats.read"] });
    expect(portal.success).toBe(false);
    const message = portal.error!.issues.find((issue) => issue.path[0] === "scopes")!.message;
    expect(message).toBe("An API client cannot use svc:stats.read: it needs a signed-in person (login clients only)");

    const [one, two, login] = await Promise.all([
      cli(["apps", "create", "--name", "Scoped bot", "--type", "api", "--owner", "alice", "--scope", "svc:chat.read", "--scope", "svc:stats.read", "--approve"]),
      cli(["apps", "create", "--name", "Scoped bot", "--type", "api", "--owner", "alice", "--scope", "svc:pokes.write", "--scope", "svc:beetle.read", "--json"]),
      cli([
        "apps", "create", "--name", "Scoped login", "--type", "login", "--owner", "alice",
        "--scope", "svc:stats.read", "--redirect-uri", "https://scoped.example/callback", "--json",
      ]),
    ]);
    expectOneLineError(one, 2, /^Error: --scope: /);
    expect(one.stderr.trimEnd()).toBe(`Error: --scope: ${message}`);
    expectOneLineError(two, 2, /^\{/);
    expect(JSON.parse(two.stderr)).toEqual({
      error: {
        code: "invalid_request",
        message: "--scope: An API client cannot use svc:pokes.write, svc:beetle.read: they need a signed-in person (login clients only)",
      },
    });
    const created = await query<{ n: number }>(databaseUrl, `SELECT count(*)::int AS n FROM "Application" WHERE name = 'Scoped bot'`);
    expect(created[0]!.n).toBe(0);
    // A login client acts for a signed-in person: the same scope is fine there.
    expect(login.code, login.stderr).toBe(0);
  });

  it("secrets list | add | retire | roll, in JSON, with clear refusals", async () => {
    const created = JSON.parse(
      (await cli(["apps", "create", "--name", "Rotating bot", "--type", "api", "--owner", "alice", "--scope", "svc:chat.read", "--approve", "--json"])).stdout,
    ) as { client_id: string; client_secret: string };
    const id = created.client_id;
    const listed = await cli(["apps", "secrets", "list", id, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const [first] = JSON.parse(listed.stdout) as { id: string; hint: string; created_at: number; last_used_at: number | null }[];
    expect(first).toEqual({ id: expect.stringMatching(/^sec_/), hint: created.client_secret.slice(-4), created_at: expect.any(Number), last_used_at: null });

    const added = await cli(["apps", "secrets", "add", id, "--json"]);
    expect(added.code, added.stderr).toBe(0);
    const second = JSON.parse(added.stdout) as { id: string; client_secret: string; hint: string };
    expect(Object.keys(second).sort()).toEqual(["client_secret", "hint", "id"]);
    expect(second.hint).toBe(second.client_secret.slice(-4));
    expectOneLineError(await cli(["apps", "secrets", "add", id, "--json"]), 1, /"code":"conflict".*Retire one/);

    const retired = await cli(["apps", "secrets", "retire", id, first!.id, "--json"]);
    expect(retired.code, retired.stderr).toBe(0);
    expect(JSON.parse(retired.stdout)).toMatchObject({ id: first!.id, retired: true });
    expectOneLineError(await cli(["apps", "secrets", "retire", id, second.id]), 1, /only active secret/);
    expectOneLineError(await cli(["apps", "secrets", "retire", id, "not-a-secret"]), 2, /SECRET_ID/);

    const rolled = await cli(["apps", "secrets", "roll", id, "--json"]);
    expect(rolled.code, rolled.stderr).toBe(0);
    const fresh = JSON.parse(rolled.stdout) as { id: string; client_secret: string };
    const after = JSON.parse((await cli(["apps", "secrets", "list", id, "--json"])).stdout) as { id: string }[];
    expect(after.map((s) => s.id)).toEqual([fresh.id]);
    const audit = await query<{ action: string }>(databaseUrl, `SELECT action FROM "AuditLog" WHERE "targetId" = $1 ORDER BY id`, [id]);
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(["app.secret.add", "app.secret.retire", "app.secret.roll"]));
  });

  it("approve, reject (with reason), suspend and list, in JSON and text", async () => {
    const make = async (name: string) =>
      JSON.parse((await cli(["apps", "create", "--name", name, "--type", "api", "--owner", "alice", "--json"])).stdout).client_id as string;
    const [a, b] = await Promise.all([make("To approve"), make("To reject")]);

    const [approved, rejected] = await Promise.all([
      cli(["apps", "approve", a, "--json"]),
      cli(["apps", "reject", b, "--reason", "Needs a description", "--json"]),
    ]);
    expect(approved.code, approved.stderr).toBe(0);
    // Without --expect-revision the CLI acts on the current revision and says which.
    expect(JSON.parse(approved.stdout)).toEqual({ client_id: a, status: "approved", status_reason: null, reviewed_revision: expect.any(Number) });
    expect(approved.stdout).not.toMatch(/secret/);
    expect(JSON.parse(rejected.stdout)).toEqual({ client_id: b, status: "rejected", status_reason: "Needs a description", reviewed_revision: expect.any(Number) });

    const suspended = await cli(["apps", "suspend", a]);
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.stdout).toContain(`Suspended: ${a}`);

    const [list, pendingList, text] = await Promise.all([
      cli(["apps", "list", "--json"]),
      cli(["apps", "list", "--status", "pending", "--json"]),
      cli(["apps", "list"]),
    ]);
    expect(list.code).toBe(0);
    const apps = (JSON.parse(list.stdout) as { apps: { client_id: string; status: string; owner: string }[] }).apps;
    expect(apps.find((x) => x.client_id === a)).toMatchObject({ status: "suspended", owner: "alice" });
    expect(apps.find((x) => x.client_id === b)).toMatchObject({ status: "rejected" });
    expect(list.stdout).not.toMatch(/secret/i);

    const pendingOnly = JSON.parse(pendingList.stdout) as { apps: { status: string }[] };
    expect(pendingOnly.apps.length).toBeGreaterThan(0);
    expect(pendingOnly.apps.every((x) => x.status === "pending")).toBe(true);

    expect(text.stdout).toContain(a);
    expect(text.stdout).toContain("suspended");

    const audit = await query<{ action: string; actorHandle: string }>(
      databaseUrl,
      `SELECT action, "actorHandle" FROM "AuditLog" WHERE "targetId" = $1 ORDER BY id`,
      [a],
    );
    expect(audit).toEqual([
      { action: "app.create", actorHandle: "system:cli" },
      { action: "app.approve", actorHandle: "system:cli" },
      { action: "app.suspend", actorHandle: "system:cli" },
    ]);
  });

  it("--device allows device sign-in (login clients only); turning it on later waits for review, off applies at once", async () => {
    const created = await cli([
      "apps", "create", "--name", "TV app", "--type", "login", "--owner", "alice",
      "--redirect-uri", "https://tv.example/cb", "--device", "--approve", "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    // apps create keeps PRODUCT.md's shape; the flag shows in apps list and apps show.
    const { client_id: tv, ...rest } = JSON.parse(created.stdout) as { client_id: string };
    expect(rest).toEqual({ status: "approved", sandbox: { client_id: `sbx_${tv}` } });
    const list = JSON.parse((await cli(["apps", "list", "--json"])).stdout) as { apps: { client_id: string; device: boolean }[] };
    expect(list.apps.find((x) => x.client_id === tv)?.device).toBe(true);

    expectOneLineError(
      await cli(["apps", "create", "--name", "Bot", "--type", "api", "--owner", "alice", "--device"]),
      2,
      /^Error: --device: An API client cannot use device sign-in/,
    );

    const off = JSON.parse((await cli(["apps", "update", tv, "--no-device", "--json"])).stdout) as { device: boolean; pending_change: unknown };
    expect(off).toMatchObject({ device: false, pending_change: null });
    const on = JSON.parse((await cli(["apps", "update", tv, "--device", "--json"])).stdout) as { device: boolean; pending_change: { device?: boolean } };
    expect(on.device).toBe(false);
    expect(on.pending_change.device).toBe(true);
    // Turning it off again withdraws the request at once; asking again puts it back.
    const withdrawn = JSON.parse((await cli(["apps", "update", tv, "--no-device", "--json"])).stdout) as { pending_change: unknown };
    expect(withdrawn.pending_change).toBeNull();
    await cli(["apps", "update", tv, "--device", "--json"]);
    const shown = await cli(["apps", "show", tv, "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ client_id: tv, device: false, pending_change: { device: true } });
    const approved = JSON.parse((await cli(["apps", "changes", "approve", tv, "--json"])).stdout) as { device: boolean };
    expect(approved.device).toBe(true);
  });

  it("--require-dpop binds an app's tokens to its key (API and login clients alike); on and off apply at once, without review", async () => {
    const created = await cli([
      "apps", "create", "--name", "Bound bot", "--type", "api", "--owner", "alice", "--scope", "svc:chat.read",
      "--require-dpop", "--approve", "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const { client_id: bot } = JSON.parse(created.stdout) as { client_id: string };
    const shown = await cli(["apps", "show", bot, "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ client_id: bot, require_dpop: true, require_par: false, pending_change: null });
    expect((await cli(["apps", "show", bot])).stdout).toMatch(/^dpop: +required$/m);

    const login = await cli([
      "apps", "create", "--name", "Bound web", "--type", "login", "--owner", "alice",
      "--redirect-uri", "https://bound.example/cb", "--approve", "--json",
    ]);
    expect(login.code, login.stderr).toBe(0);
    const { client_id: web } = JSON.parse(login.stdout) as { client_id: string };
    // An approved app's own protection: applied at once, nothing waits for review.
    const on = JSON.parse((await cli(["apps", "update", web, "--require-dpop", "--json"])).stdout) as { require_dpop: boolean; pending_change: unknown };
    expect(on).toMatchObject({ require_dpop: true, pending_change: null });
    const off = JSON.parse((await cli(["apps", "update", bot, "--no-require-dpop", "--json"])).stdout) as { require_dpop: boolean; pending_change: unknown };
    expect(off).toMatchObject({ require_dpop: false, pending_change: null });
    const rows = await query<{ clientId: string; requireDpop: boolean }>(
      databaseUrl,
      `SELECT "clientId", "requireDpop" FROM "Application" WHERE "clientId" = ANY($1) ORDER BY "clientId"`,
      [[bot, web]],
    );
    expect(rows).toEqual([{ clientId: bot, requireDpop: false }, { clientId: web, requireDpop: true }]);

    expectOneLineError(
      await cli(["apps", "update", web, "--require-dpop", "--no-require-dpop"]),
      2,
      /^Error: give either --require-dpop or --no-require-dpop, not both/,
    );
  });
});

describe("users", () => {
  it("create stores an Argon2id hash and never prints the password", async () => {
    const run = await cli(["users", "create", "--handle", "opsuser", "--password", "s3cret-pass-word", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ handle: "opsuser", role: "user" });
    expect(run.stdout + run.stderr).not.toContain("s3cret-pass-word");
    const [row] = await query<{ passwordHash: string }>(databaseUrl, `SELECT "passwordHash" FROM "User" WHERE handle = 'opsuser'`);
    expect(row!.passwordHash).toMatch(CURRENT_HASH_PATTERN);

    const admin = await cli(["users", "create", "--handle", "opsadmin", "--password-stdin", "--admin"], { input: "another-pass-123\n" });
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.stdout).toContain("Created admin opsadmin");
    const { verifyPassword } = await import("../../lib/crypto/passwords");
    const [adminRow] = await query<{ passwordHash: string; role: string }>(databaseUrl, `SELECT "passwordHash", role FROM "User" WHERE handle = 'opsadmin'`);
    expect(adminRow!.role).toBe("admin");
    expect(await verifyPassword("another-pass-123", adminRow!.passwordHash)).toBe(true);
  });

  it("disable, enable, mute and unmute", async () => {
    const flags = async () =>
      (await query<{ disabled: boolean; muted: boolean }>(databaseUrl, `SELECT disabled, muted FROM "User" WHERE handle = 'carol'`))[0];
    const disable = await cli(["users", "disable", "carol", "--json"]);
    expect(JSON.parse(disable.stdout)).toEqual({ handle: "carol", disabled: true, muted: false });
    expect(await flags()).toEqual({ disabled: true, muted: false });
    const mute = await cli(["users", "mute", "carol"]);
    expect(mute.stdout).toContain("carol: disabled, muted");
    await cli(["users", "enable", "carol"]);
    const unmute = await cli(["users", "unmute", "carol", "--json"]);
    expect(JSON.parse(unmute.stdout)).toEqual({ handle: "carol", disabled: false, muted: false });
    expect(await flags()).toEqual({ disabled: false, muted: false });
  });
});

describe("keys", () => {
  const activeKids = async () =>
    (await query<{ kid: string }>(databaseUrl, `SELECT kid FROM "SigningKey" WHERE "retiredAt" IS NULL ORDER BY kid`)).map((r) => r.kid);

  it("keys rotate --json retires every active key, generates new ones, prints only its JSON and is audited", async () => {
    // The seeded template has no signing keys yet (a server generates them on first start): a first
    // rotation creates them, so the second one has keys to retire.
    const first = await cli(["keys", "rotate", "--json"], { env: { LOG_LEVEL: undefined } });
    expect(first.code, first.stderr).toBe(0);
    const before = await activeKids();
    expect(before).toHaveLength(2); // ES256 and RS256

    const run = await cli(["keys", "rotate", "--json"], { env: { LOG_LEVEL: undefined } });
    expect(run.code, run.stderr).toBe(0);
    // The key generation's info logs stay off stdout: it is exactly one JSON document.
    const out = JSON.parse(run.stdout) as { retired: string[] };
    expect(Object.keys(out)).toEqual(["retired"]);
    expect([...out.retired].sort()).toEqual(before);

    // The retired keys stay published (retiredAt and expiresAt set); two new ones are active.
    const retired = await query<{ kid: string; expiresAt: Date | null }>(
      databaseUrl,
      `SELECT kid, "expiresAt" FROM "SigningKey" WHERE "retiredAt" IS NOT NULL AND kid = ANY($1::text[]) ORDER BY kid`,
      [before],
    );
    expect(retired.map((r) => r.kid)).toEqual(before);
    for (const r of retired) expect(r.expiresAt).not.toBeNull();
    const after = await activeKids();
    expect(after).toHaveLength(2);
    for (const kid of after) expect(before).not.toContain(kid);

    const audit = await query<{ detail: { retired: string[] } }>(
      databaseUrl,
      `SELECT detail FROM "AuditLog" WHERE action = 'keys.rotate' ORDER BY id`,
    );
    expect(audit).toHaveLength(2);
    expect([...audit[1]!.detail.retired].sort()).toEqual(before);
  });
});

describe("errors: one clear line and a non-zero exit", () => {
  it("reports each bad input", async () => {
    const [unknownUser, duplicate, unknownClient, badUri, unknownCommand, unknownOption, missing, badScope, unknownFlagUser, apiWithRedirect] =
      await Promise.all([
        cli(["apps", "create", "--name", "X", "--type", "api", "--owner", "ghost_owner"]),
        cli(["users", "create", "--handle", "alice", "--password", "long-enough-1"]),
        cli(["apps", "approve", "api_doesNotExist0000000"]),
        cli(["apps", "create", "--name", "X", "--type", "login", "--owner", "alice", "--redirect-uri", "callback.html"]),
        cli(["apps", "frobnicate"]),
        cli(["apps", "list", "--colour"]),
        cli(["apps", "reject"]),
        cli(["apps", "create", "--name", "X", "--type", "api", "--owner", "alice", "--scope", "svc:everything"]),
        cli(["users", "mute", "ghost_user"]),
        cli(["apps", "create", "--name", "X", "--type", "api", "--owner", "alice", "--redirect-uri", "https://x.example/cb"]),
      ]);
    expectOneLineError(unknownUser, 1, /^Error: No user with the handle "ghost_owner"\.$/);
    expectOneLineError(duplicate, 1, /^Error: The handle "alice" is already taken\.$/);
    expectOneLineError(unknownClient, 1, /^Error: No application with the client id "api_doesNotExist0000000"\.$/);
    expectOneLineError(badUri, 2, /^Error: --redirect-uri: callback\.html: must be an absolute URL/);
    expectOneLineError(unknownCommand, 2, /^Error: unknown command "apps frobnicate"/);
    expectOneLineError(unknownOption, 2, /^Error: unknown option --colour for apps list/);
    expectOneLineError(missing, 2, /^Error: apps reject expects CLIENT_ID/);
    expectOneLineError(badScope, 2, /^Error: --scope: Unknown scope "svc:everything"/);
    expectOneLineError(unknownFlagUser, 1, /^Error: No user with the handle "ghost_user"\.$/);
    expectOneLineError(apiWithRedirect, 2, /^Error: --redirect-uri: An API client has no redirect URIs$/);
  });

  it("rejects plain-http and fragment redirect URIs", async () => {
    const [http, fragment] = await Promise.all([
      cli(["apps", "create", "--name", "X", "--type", "login", "--owner", "alice", "--redirect-uri", "http://app.example/cb"]),
      cli(["apps", "create", "--name", "X", "--type", "login", "--owner", "alice", "--redirect-uri", "https://app.example/cb#x"]),
    ]);
    expectOneLineError(http, 2, /must use https/);
    expectOneLineError(fragment, 2, /must not contain a fragment/);
  });

  it("with --json, errors are one JSON line", async () => {
    const run = await cli(["apps", "approve", "api_nope", "--json"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: "not_found", message: 'No application with the client id "api_nope".' } });
  });

  it("a bad environment variable stops it with one line naming the variable", async () => {
    expectOneLineError(await cli(["apps", "list"], { env: { ISSUER: "not a url" } }), 1, /^Error: Invalid environment variable ISSUER/);
  });

  it("an unreachable database is one line without the password", async () => {
    const run = await cli(["apps", "list"], { env: { DATABASE_URL: "postgres://ops:hunter2secret@127.0.0.1:1/platform" } });
    expectOneLineError(run, 1, /^Error: Cannot connect to PostgreSQL at 127\.0\.0\.1:1\/platform/);
    expect(run.stderr).not.toContain("hunter2secret");
  });
});

describe("without DATABASE_URL (embedded PostgreSQL)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "platform-cli-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reuses the running embedded server of `npm start`, or starts and stops its own", async () => {
    const port = await findFreePort();
    const env = { DATABASE_URL: undefined, DATA_DIR: dir, EMBEDDED_PG_PORT: String(port) };
    // Running: as `npm start` leaves it (server up, database created).
    const running = await startEmbeddedPostgres({ dir, port });
    try {
      await ensureDatabase(running.serverUrl, "platform");
      const created = await cli(["users", "create", "--handle", "embedded_op", "--password", "long-enough-1", "--json"], { env });
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ handle: "embedded_op" });
      // It talked to the running server: the row is there.
      expect(await query(running.url("platform"), `SELECT 1 FROM "User" WHERE handle = 'embedded_op'`)).toHaveLength(1);
    } finally {
      await running.stop();
    }
    // Not running: the CLI starts it for the command and stops it afterwards.
    const own = await cli(["users", "mute", "embedded_op", "--json"], { env });
    expect(own.code, own.stderr).toBe(0);
    expect(JSON.parse(own.stdout)).toEqual({ handle: "embedded_op", disabled: false, muted: true });
    expect(own.stderr).toMatch(/Starting the embedded PostgreSQL/);
    const again = await startEmbeddedPostgres({ dir, port }); // the port is free again
    await again.stop();
  });
});
