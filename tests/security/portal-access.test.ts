import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../lib/seed/demo-accounts";
import { query } from "../helpers/db";
import { CookieJar, createTestApp, jarFetch, type TestApp } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";
import { callServerAction, portalSignIn, serverActions, type PortalSession, type ServerAction } from "./portal-client";

/**
 * Issue 7, "Authorization" and CSRF in the developer portal, from outside the UI: a signed-in
 * developer scripts requests by URL and calls the server actions directly over HTTP (the way
 * React calls them: POST with `Next-Action`), against another developer's app and the admin
 * actions. Every refusal is checked in the database (nothing changed) and in the audit log
 * (outcome 'denied'). Next-auth's callbackUrl must never send a signed-in browser elsewhere.
 */
let server: TestServer;
let actions: Record<string, ServerAction>;
let alice: PortalSession;
let admin: PortalSession;
/** Bob's apps: the targets alice goes after. */
let bobApproved: TestApp;
let bobPending: TestApp;

const password = (handle: string) => DEMO_ACCOUNTS.find((a) => a.handle === handle)!.password;

beforeAll(async () => {
  server = await startServer({ next: true, seed: true });
  actions = serverActions();
  bobApproved = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "bob", name: "Bob's approved bot", scopes: ["svc:chat.read"] });
  bobPending = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "bob", name: "Bob's pending bot", status: "pending" });
  alice = await portalSignIn(server, "alice", password("alice"));
  admin = await portalSignIn(server, "admin", password("admin"));
  // A Next build may be running (sources changed): it can take minutes on a busy machine.
}, 600_000);

afterAll(async () => {
  await server?.stop();
});

function action(name: string): ServerAction {
  const found = actions[name];
  if (!found) throw new Error(`no server action named ${name} in the build (have: ${Object.keys(actions).join(", ")})`);
  return found;
}

/** The app's row and its active secrets (id and hash), so a refused secret change shows as "nothing changed". */
async function appRow(clientId: string) {
  const rows = await query<{ name: string; status: string; description: string; secrets: string | null }>(
    server.databaseUrl,
    `SELECT a.name, a.status::text, a.description,
            (SELECT string_agg(s.id || ':' || s.hash, ',' ORDER BY s.id) FROM "ClientSecret" s WHERE s."applicationId" = a.id) AS secrets
     FROM "Application" a WHERE a."clientId" = $1`,
    [clientId],
  );
  return rows[0] ?? null;
}

async function secretIds(clientId: string): Promise<string[]> {
  const rows = await query<{ id: string }>(
    server.databaseUrl,
    `SELECT s.id FROM "ClientSecret" s JOIN "Application" a ON a.id = s."applicationId" WHERE a."clientId" = $1 ORDER BY s.id`,
    [clientId],
  );
  return rows.map((r) => r.id);
}

/** The secret actions against one app, as a stranger or an admin would call them. */
async function secretCalls(clientId: string) {
  const [secretId] = await secretIds(clientId);
  expect(secretId, "the app has a secret").toBeTruthy();
  return [
    ["addSecretAction", [clientId]],
    ["retireSecretAction", [clientId, secretId]],
    ["rollSecretAction", [clientId]],
  ] as const;
}

async function userFlags(handle: string) {
  return (await query<{ disabled: boolean; muted: boolean }>(server.databaseUrl, `SELECT disabled, muted FROM "User" WHERE handle = $1`, [handle]))[0]!;
}

async function denials(actor: string) {
  return query<{ action: string; targetId: string }>(
    server.databaseUrl,
    `SELECT action, "targetId" FROM "AuditLog" WHERE "actorHandle" = $1 AND outcome = 'denied' ORDER BY id`,
    [actor],
  );
}

describe("sessions", () => {
  it("both sign-ins landed in the portal with an HttpOnly, SameSite session cookie", async () => {
    for (const session of [alice, admin]) {
      expect(session.landing.href).toBe(`${server.url}/apps`);
      expect(session.jar.names()).toContain("next-auth.session-token");
      expect((await jarFetch(session.jar, `${server.url}/apps`)).status).toBe(200);
    }
    // HttpOnly (no script reads it), SameSite=Lax (no cross-site POST carries it), whole site.
    const cookie = alice.callbackCookies.find((c) => c.startsWith("next-auth.session-token="));
    expect(cookie, alice.callbackCookies.join("\n")).toBeDefined();
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    expect(cookie).toMatch(/;\s*Path=\/(;|$)/i);
    // Replaying the callback URL (code and state) without the browser's state cookies signs nobody in.
    const callback = alice.trail.find((u) => u.includes("/api/auth/callback/platform"))!;
    const replay = await jarFetch(new CookieJar(), callback);
    expect(replay.headers.getSetCookie().some((c) => c.startsWith("next-auth.session-token=") && !c.startsWith("next-auth.session-token=;"))).toBe(false);
  });

  it("the positive control: the admin's own action call works, so the refusals below are real", async () => {
    const target = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "carol", status: "pending" });
    const [row] = await query<{ revision: number }>(server.databaseUrl, `SELECT revision FROM "Application" WHERE "clientId" = $1`, [target.clientId]);
    const call = await callServerAction(server, admin.jar, action("approveAppAction"), [target.clientId, row!.revision]);
    expect(call.result, call.text.slice(0, 500)).toEqual({ ok: true, data: { clientId: target.clientId, status: "approved" } });
    expect((await appRow(target.clientId))!.status).toBe("approved");
  });
});

describe("a developer and another developer's app", () => {
  it("cannot read it by URL: the page and the edit page are the not-found page, without the app's data", async () => {
    for (const path of [`/apps/${bobApproved.clientId}`, `/apps/${bobApproved.clientId}/edit`]) {
      const res = await jarFetch(alice.jar, `${server.url}${path}`);
      const html = await res.text();
      // The not-found page, with its status: no loading boundary streams these pages, so the
      // page's notFound() still sets the response status.
      expect(res.status, path).toBe(404);
      expect(html, path).toContain("Page not found");
      expect(html).not.toContain("Bob&#x27;s approved bot");
      expect(html).not.toContain("Bob's approved bot");
    }
    // The owner sees it (the same URLs are not simply broken).
    const bob = await portalSignIn(server, "bob", password("bob"));
    expect((await jarFetch(bob.jar, `${server.url}/apps/${bobApproved.clientId}`)).status).toBe(200);
    expect(await denials("alice")).toEqual(expect.arrayContaining([{ action: "app.view", targetId: bobApproved.clientId }]));
  });

  it("cannot edit, delete or change its secrets by calling the server actions", async () => {
    const before = await appRow(bobApproved.clientId);
    expect(before!.secrets).toBeTruthy();
    const calls = [
      ["updateAppAction", [bobApproved.clientId, { name: "Pwned", description: "taken over" }]],
      ["deleteAppAction", [bobApproved.clientId]],
      ...(await secretCalls(bobApproved.clientId)),
    ] as const;
    for (const [name, args] of calls) {
      const call = await callServerAction(server, alice.jar, action(name), [...args]);
      expect(call.result?.ok, `${name}: ${call.text.slice(0, 300)}`).toBe(false);
      // not_found: the app's existence is not even confirmed to a stranger.
      expect(call.result?.error?.code, name).toBe("not_found");
      expect(call.text).not.toMatch(/clientSecret|client_secret/);
    }
    expect(await appRow(bobApproved.clientId)).toEqual(before);
    const denied = (await denials("alice")).filter((d) => d.targetId === bobApproved.clientId).map((d) => d.action);
    expect(denied).toEqual(expect.arrayContaining(["app.update", "app.delete", "app.secret.add", "app.secret.retire", "app.secret.roll"]));
  });

  it("an admin can manage it but never gets, adds, retires or rolls its secrets", async () => {
    const before = await appRow(bobApproved.clientId);
    for (const [name, args] of await secretCalls(bobApproved.clientId)) {
      const call = await callServerAction(server, admin.jar, action(name), [...args]);
      expect(call.result?.ok, `${name}: ${call.text.slice(0, 300)}`).toBe(false);
      expect(call.result?.error?.code, name).toBe("forbidden");
      expect(call.text).not.toMatch(/clientSecret|client_secret/);
    }
    expect(await appRow(bobApproved.clientId)).toEqual(before);
    expect(await denials("admin")).toEqual(
      expect.arrayContaining(
        ["app.secret.add", "app.secret.retire", "app.secret.roll"].map((a) => ({ action: a, targetId: bobApproved.clientId })),
      ),
    );
    // The app page shows the admin the hints only, without a way to change them.
    const html = await (await jarFetch(admin.jar, `${server.url}/apps/${bobApproved.clientId}`)).text();
    expect(html).toContain("owner and team admins can see or manage secrets.");
    expect(html).toContain(`••••</span>${bobApproved.clientSecret!.slice(-4)}`);
    for (const button of ["Add a second secret", "Roll secret", "Retire the secret"]) expect(html, button).not.toContain(button);
  });

  it("the positive control: the owner's own secret calls work, so the refusals above are real", async () => {
    const bob = await portalSignIn(server, "bob", password("bob"));
    const [original] = await secretIds(bobApproved.clientId);
    const added = await callServerAction(server, bob.jar, action("addSecretAction"), [bobApproved.clientId]);
    expect(added.result?.ok, added.text.slice(0, 300)).toBe(true);
    const { secretId } = added.result!.data as { secretId: string };
    const both = await secretIds(bobApproved.clientId);
    expect(both).toHaveLength(2);
    expect(both).toEqual(expect.arrayContaining([original, secretId]));
    const retired = await callServerAction(server, bob.jar, action("retireSecretAction"), [bobApproved.clientId, secretId]);
    expect(retired.result, retired.text.slice(0, 300)).toEqual({ ok: true, data: { secretId } });
    expect(await secretIds(bobApproved.clientId)).toEqual([original]);
    // A malformed secret id is refused at the edge, before any service runs.
    const bad = await callServerAction(server, bob.jar, action("retireSecretAction"), [bobApproved.clientId, "'; DROP TABLE"]);
    expect(bad.result?.error?.code).toBe("invalid_request");
  });
});

describe("a non-admin and the admin area", () => {
  it("gets 403 on every admin page", async () => {
    for (const path of ["/admin", "/admin/apps", "/admin/users", "/admin/audit"]) {
      const res = await jarFetch(alice.jar, `${server.url}${path}`);
      expect(res.status, path).toBe(403);
      const html = await res.text();
      expect(html).not.toContain(bobPending.clientId);
    }
  });

  it("cannot approve, reject, suspend, reinstate, disable, enable, mute or unmute by calling the actions", async () => {
    const appsBefore = { pending: await appRow(bobPending.clientId), approved: await appRow(bobApproved.clientId) };
    const bobBefore = await userFlags("bob");
    const malloryBefore = await userFlags("mallory");
    const calls: [string, unknown[], string, string][] = [
      ["approveAppAction", [bobPending.clientId], "app.approve", bobPending.clientId],
      ["rejectAppAction", [bobPending.clientId, { reason: "spam" }], "app.reject", bobPending.clientId],
      ["suspendAppAction", [bobApproved.clientId, { reason: "abuse" }], "app.suspend", bobApproved.clientId],
      ["reinstateAppAction", [bobApproved.clientId], "app.reinstate", bobApproved.clientId],
      ["setUserDisabledAction", ["bob", true], "user.disable", "bob"],
      ["setUserDisabledAction", ["dave", false], "user.enable", "dave"],
      ["setUserMutedAction", ["bob", true], "user.mute", "bob"],
      ["setUserMutedAction", ["mallory", false], "user.unmute", "mallory"],
    ];
    for (const [name, args, auditAction, target] of calls) {
      const call = await callServerAction(server, alice.jar, action(name), args);
      expect(call.result, `${name}: ${call.text.slice(0, 300)}`).toMatchObject({ ok: false, error: { code: "forbidden" } });
      expect(await denials("alice"), name).toEqual(expect.arrayContaining([{ action: auditAction, targetId: target }]));
    }
    expect(await appRow(bobPending.clientId)).toEqual(appsBefore.pending);
    expect(await appRow(bobApproved.clientId)).toEqual(appsBefore.approved);
    expect(await userFlags("bob")).toEqual(bobBefore);
    expect(await userFlags("mallory")).toEqual(malloryBefore);
    expect((await userFlags("dave")).disabled).toBe(true);
  });

  it("signed out, every action is refused as unauthorized and changes nothing", async () => {
    const calls = [
      ["approveAppAction", [bobPending.clientId]],
      ["deleteAppAction", [bobApproved.clientId]],
      ["rollSecretAction", [bobApproved.clientId]],
      ["createAppAction", [{ name: "Anon", description: "", type: "api", scopes: [], redirectUris: [], postLogoutRedirectUris: [] }]],
    ] as const;
    // Without a session cookie, proxy.ts sends the request to the sign-in page before any action runs.
    for (const [name, args] of calls) {
      const call = await callServerAction(server, new CookieJar(), action(name), [...args]);
      expect(call.status, name).toBe(303);
      expect(call.result, name).toBeNull();
    }
    // With a forged session cookie the proxy lets it through (it only looks for the cookie): the
    // action itself checks the session and refuses.
    const forged = new CookieJar();
    forged.store(server.url, new Headers({ "set-cookie": "next-auth.session-token=forged-session; Path=/" }));
    for (const [name, args] of calls) {
      const call = await callServerAction(server, forged, action(name), [...args]);
      expect(call.result, `${name}: ${call.status} ${call.text.slice(0, 200)}`).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    }
    expect((await appRow(bobPending.clientId))!.status).toBe("pending");
    expect(await appRow(bobApproved.clientId)).not.toBeNull();
    expect(await query(server.databaseUrl, `SELECT 1 FROM "Application" WHERE name = 'Anon'`)).toEqual([]);
  });
});

describe("CSRF", () => {
  const newApp = (name: string) => ({ name, description: "", type: "api", scopes: [], redirectUris: [], postLogoutRedirectUris: [] });

  it("a server action posted from another origin is refused, even with the victim's cookies", async () => {
    for (const origin of ["https://evil.example", "http://localhost.evil.example", "null"]) {
      const call = await callServerAction(server, alice.jar, action("createAppAction"), [newApp(`CSRF ${origin}`)], { origin });
      expect(call.result?.ok, `${origin}: ${call.status} ${call.text.slice(0, 200)}`).not.toBe(true);
      expect(call.status, origin).toBeGreaterThanOrEqual(400);
    }
    const created = await query(server.databaseUrl, `SELECT name FROM "Application" WHERE name LIKE 'CSRF %'`);
    expect(created).toEqual([]);
    // The same call from the portal's own origin works (the refusal above is the origin check).
    const ok = await callServerAction(server, alice.jar, action("createAppAction"), [newApp("Same-origin app")]);
    expect(ok.result?.ok, ok.text.slice(0, 300)).toBe(true);
  });

  it("next-auth's sign-out and sign-in refuse a post without its CSRF token", async () => {
    const signout = await jarFetch(alice.jar, `${server.url}/api/auth/signout`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: new URLSearchParams({ callbackUrl: "/" }),
    });
    expect(signout.headers.getSetCookie().some((c) => c.startsWith("next-auth.session-token=;"))).toBe(false);
    expect((await jarFetch(alice.jar, `${server.url}/apps`)).status).toBe(200);

    const jar = new CookieJar();
    const signin = await jarFetch(jar, `${server.url}/api/auth/signin/platform`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ callbackUrl: "/apps" }),
    });
    // Sent back to the sign-in page with csrf=true, not on to the sign-in service.
    const location = signin.headers.get("location") ?? "";
    expect(location).not.toContain("/realms/platform/");
    expect(location).toContain("csrf=true");
  });
});

describe("hostile form input", () => {
  it("text PostgreSQL cannot store is a field error, not a server error", async () => {
    for (const name of ["Bad\u0000name", "\ud800"]) {
      const call = await callServerAction(server, alice.jar, action("createAppAction"), [
        { name, description: "", type: "api", scopes: [], redirectUris: [], postLogoutRedirectUris: [] },
      ]);
      expect(call.result, JSON.stringify(name)).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    }
    // With the right revision, so only the reason's NUL byte is what is refused.
    const [row] = await query<{ revision: number }>(server.databaseUrl, `SELECT revision FROM "Application" WHERE "clientId" = $1`, [bobPending.clientId]);
    const reject = await callServerAction(server, admin.jar, action("rejectAppAction"), [bobPending.clientId, { reason: "no\u0000", revision: row!.revision }]);
    expect(reject.result).toMatchObject({ ok: false, error: { code: "invalid_request", fields: { reason: expect.any(String) } } });
    expect(server.logs.filter((l) => l.includes("server action failed"))).toEqual([]);
  });
});

describe("open redirects through callbackUrl", () => {
  const evil = ["https://evil.example/steal", "//evil.example/steal", "http://evil.example", "/\\evil.example", "https://localhost.evil.example/"];

  it("a sign-in with a foreign callbackUrl lands in the portal, never elsewhere", async () => {
    for (const callbackUrl of evil) {
      const session = await portalSignIn(server, "carol", password("carol"), { callbackUrl });
      expect(session.landing.origin, `${callbackUrl} → ${session.landing.href}`).toBe(new URL(server.url).origin);
      for (const step of session.trail) expect(new URL(step).origin, session.trail.join(" → ")).toBe(new URL(server.url).origin);
    }
  });

  it("the sign-in page of a signed-in user only redirects to its own paths", async () => {
    for (const callbackUrl of evil) {
      const res = await jarFetch(alice.jar, `${server.url}/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      expect([303, 307, 308]).toContain(res.status);
      const target = new URL(res.headers.get("location")!, server.url);
      expect(target.origin, callbackUrl).toBe(new URL(server.url).origin);
      expect(target.pathname).toBe("/apps");
    }
  });

  it("next-auth's own redirect endpoints keep foreign URLs out", async () => {
    for (const callbackUrl of evil) {
      const res = await jarFetch(new CookieJar(), `${server.url}/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      // next-auth sends the browser on to the sign-in page: a redirect, on our own origin.
      expect([302, 303, 307], callbackUrl).toContain(res.status);
      const location = res.headers.get("location");
      expect(location, callbackUrl).toBeTruthy();
      expect(new URL(location!, server.url).origin, callbackUrl).toBe(new URL(server.url).origin);
    }
  });
});
