import { expect, test } from "@playwright/test";
import { createHash, randomBytes } from "node:crypto";
import { CALLBACK, password, server } from "./support";
import { makeLogo } from "../tests/helpers/images";
import { startAgentSite, type AgentSite } from "./agents";
import { app, closePeople, expectClean, foreignRequests, openPeople, people, sweep, sweepLight } from "./sweep";

// The layout sweep (e2e/sweep.ts): every page in both themes, each checked light, then switched to dark in place.
test.describe("layout, axe and console sweep at 390 px and 1280 px, light and dark: docs, account, admin and hosted pages", () => {
  let agentSite: AgentSite;
  let agentClientId: string;
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    await openPeople(browser);
    agentSite = await startAgentSite();
    const agentPath = `sweep/${"long-path-segment-".repeat(8)}assistant`;
    agentClientId = agentSite.publish(agentPath, {
      client_name: "Research Assistant for Literature Reviews, Grant Proposals and Weekly Lab Meeting Summaries",
      logo_uri: agentSite.publishLogo(agentPath, await makeLogo("png", { width: 300, height: 200, color: "#0f766e" })),
    });
  });
  test.afterAll(async () => {
    await agentSite?.close();
  });

  test.afterAll(closePeople);

  // Docs, as a signed-in developer reads them.
  for (const [slug, path] of [
    ["docs", "/docs"],
    ["docs-authentication", "/docs/authentication"],
    ["docs-scopes", "/docs/scopes"],
    ["docs-errors", "/docs/errors"],
    ["docs-sdk", "/docs/sdk"],
    ["docs-events", "/docs/events"],
    ["docs-agents", "/docs/agents"],
    ["docs-mcp", "/docs/mcp"],
  ] as const) {
    test(`docs: ${path}`, async () => {
      expectClean(await sweep("alice", slug, (p) => p.goto(`${server.url}${path}`)));
    });
  }
  // Light only: Scalar's client reads the theme once when it opens, so its dark theme needs a visit of
  // its own (e2e/api-reference.spec.ts: both themes, both widths, axe, overflow and console).
  test("docs: /docs/api-reference (Scalar)", async () => {
    expectClean(
      await sweepLight("alice", "docs-api-reference", async (p) => {
        await p.goto(`${server.url}/docs/api-reference`);
        await p.getByRole("heading", { level: 1 }).first().waitFor({ timeout: 30_000 });
      }),
    );
  });

  // Every person's own pages.
  test("account: Connected apps", async () => {
    expectClean(await sweep("alice", "account-apps", (p) => p.goto(`${server.url}/account/apps`)));
  });
  test("account: the revoke dialog", async () => {
    expectClean(
      await sweep("alice", "account-apps-revoke-dialog", async (p) => {
        await p.goto(`${server.url}/account/apps`);
        await p.getByRole("button", { name: "Revoke access" }).first().click();
        await p.getByRole("dialog").waitFor();
      }),
    );
  });
  test("account: Account security (issue 29)", async () => {
    expectClean(await sweep("alice", "account-security", (p) => p.goto(`${server.url}/account/security`)));
  });
  test("account: setting up an authenticator app, QR code and key (issue 29)", async () => {
    expectClean(
      await sweep("alice", "account-security-proof", async (p) => {
        await p.goto(`${server.url}/account/security`);
        await p.getByRole("button", { name: "Set up authenticator app" }).click();
        await p.getByRole("form", { name: "Set up authenticator app" }).getByLabel("Your password").waitFor();
      }),
    );
    expectClean(
      // Adding a factor asks for the account's password first; then the QR code and the key.
      await sweep("alice", "account-security-setup", async (p) => {
        await p.goto(`${server.url}/account/security`);
        await p.getByRole("button", { name: "Set up authenticator app" }).click();
        const proof = p.getByRole("form", { name: "Set up authenticator app" });
        await proof.getByLabel("Your password").fill(password("alice"));
        await proof.getByRole("button", { name: "Continue" }).click();
        await p.getByTestId("totp-secret").waitFor();
      }),
    );
  });

  // The admin's pages.
  test("admin: the usage overview (issue 16)", async () => {
    expectClean(await sweep("admin", "admin-usage", (p) => p.goto(`${server.url}/admin/usage`)));
    expectClean(await sweep("admin", "admin-usage-7d", (p) => p.goto(`${server.url}/admin/usage?range=7d`)));
  });
  test("admin: a user's connected apps", async () => {
    expectClean(await sweep("admin", "admin-user", (p) => p.goto(`${server.url}/admin/users/alice`)));
  });
  test("admin: an admin's view of another developer's app", async () => {
    expectClean(await sweep("admin", "admin-app-view", (p) => p.goto(`${server.url}/apps/${app("pending").clientId}`)));
  });
  test("admin: the Webhooks tab of another developer's app, read only (issue 25)", async () => {
    expectClean(await sweep("admin", "admin-app-webhooks", (p) => p.goto(`${server.url}/apps/${app("approvedKept").clientId}/webhooks`)));
  });
  test("admin: the reject dialog on an app page", async () => {
    expectClean(
      await sweep("admin", "admin-reject-dialog", async (p) => {
        await p.goto(`${server.url}/apps/${app("pending").clientId}`);
        await p.getByRole("button", { name: /^Reject/ }).first().click();
        await p.getByRole("dialog").waitFor();
      }),
    );
  });
  test("admin: the suspend dialog on an app page", async () => {
    expectClean(
      await sweep("admin", "admin-suspend-dialog", async (p) => {
        await p.goto(`${server.url}/apps/${app("approvedKept").clientId}`);
        await p.getByRole("button", { name: /^Suspend/ }).first().click();
        await p.getByRole("dialog").waitFor();
      }),
    );
  });
  test("admin: the reject dialog from the review queue (opened in a right-aligned table cell)", async () => {
    expectClean(
      await sweep("admin", "admin-queue-reject-dialog", async (p) => {
        await p.goto(`${server.url}/admin/apps`);
        await p.getByRole("button", { name: /^Reject\b/ }).first().click();
        await p.getByRole("dialog").waitFor();
      }),
    );
  });
  test("admin: overview", async () => {
    expectClean(await sweep("admin", "admin-overview", (p) => p.goto(`${server.url}/admin`)));
  });
  test("admin: apps queue (60 pending)", async () => {
    expectClean(await sweep("admin", "admin-apps", (p) => p.goto(`${server.url}/admin/apps`)));
  });
  test("admin: Agents (long client URLs, each status, rules; issue 40)", async () => {
    expectClean(await sweep("admin", "admin-agents", (p) => p.goto(`${server.url}/admin/agents`)));
  });
  test("admin: users", async () => {
    expectClean(await sweep("admin", "admin-users", (p) => p.goto(`${server.url}/admin/users`)));
  });
  test("admin: audit log (200 of alice's entries, issue 28)", async () => {
    expectClean(await sweep("admin", "admin-audit", (p) => p.goto(`${server.url}/admin/audit`)));
  });
  test("admin: audit log, filtered (the filters open on a phone, issue 28)", async () => {
    expectClean(await sweep("admin", "admin-audit-filtered", (p) => p.goto(`${server.url}/admin/audit?actor=alice&action=app.*`)));
  });
  test("admin: forbidden for a developer", async () => {
    expectClean(await sweep("alice", "forbidden", (p) => p.goto(`${server.url}/admin`), { status: 403 }));
  });

  // The hosted sign-in pages, as carol signs in to alice's login client (long name); in the light
  // theme only (their dark theme, in every language: e2e/hosted-languages).
  function authorizeUrl(): string {
    const url = new URL(`${server.issuer}/protocol/openid-connect/auth`);
    url.search = new URLSearchParams({
      client_id: app("login").clientId,
      response_type: "code",
      redirect_uri: CALLBACK,
      scope: "openid",
      state: randomBytes(8).toString("hex"),
      code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    return url.href;
  }
  test("hosted: login", async () => {
    expectClean(
      await sweepLight("carol", "hosted-login", async (p) => {
        await p.goto(authorizeUrl());
        await p.waitForURL(/\/interaction\//);
        await p.getByLabel("Username").waitFor();
      }),
    );
  });
  test("hosted: consent (long app name)", async () => {
    const page = people.carol!;
    if (!/\/interaction\//.test(page.url())) {
      await page.goto(authorizeUrl());
      await page.waitForURL(/\/interaction\//);
    }
    await page.getByLabel("Username").fill("carol");
    await page.getByLabel("Password").fill("carol-demo-pass");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("button", { name: "Allow" }).waitFor();
    // Already on the page: the sweep's "open" only waits.
    expectClean(
      await sweepLight("carol", "hosted-consent", (p) => p.getByRole("button", { name: "Allow" }).waitFor(), {
        again: async (p) => {
          await p.reload();
          await p.getByRole("button", { name: "Allow" }).waitFor();
        },
      }),
    );
  });
  test("hosted: consent of an AI agent (its claimed name, the verified domain, a long client URL; light and dark)", async () => {
    // carol is signed in to the platform by the consent test above: the agent's request goes straight to consent.
    const agentUrl = () => {
      const url = new URL(`${server.issuer}/protocol/openid-connect/auth`);
      url.search = new URLSearchParams({
        client_id: agentClientId,
        response_type: "code",
        redirect_uri: CALLBACK,
        scope: "openid profile svc:chat.read svc:chat.write svc:notifications.read",
        code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
        code_challenge_method: "S256",
      }).toString();
      return url.href;
    };
    const open = async (p: import("@playwright/test").Page) => {
      await p.goto(agentUrl());
      // Signed in already unless this test runs alone (-g): then the login page comes first.
      const allow = p.getByRole("button", { name: "Allow" });
      const username = p.getByLabel("Username");
      await allow.or(username).waitFor();
      if (await username.isVisible()) {
        await username.fill("carol");
        await p.getByLabel("Password").fill(password("carol"));
        await p.getByRole("button", { name: "Sign in", exact: true }).click();
      }
      await allow.waitFor();
    };
    expectClean(await sweep("carol", "hosted-agent-consent", open));
  });
  test("hosted: logout confirmation and signed-out page", async () => {
    const logout = `${server.issuer}/protocol/openid-connect/logout?client_id=${app("login").clientId}`;
    expectClean(
      await sweepLight("carol", "hosted-logout", async (p) => {
        await p.goto(logout);
        await p.waitForURL(/\/interaction\/logout/);
      }),
    );
    expectClean(
      await sweepLight(
        "carol",
        "hosted-signed-out",
        async (p) => {
          await p.getByRole("button", { name: /sign out/i }).first().click();
          await p.waitForURL(/\/interaction\/signed-out/);
        },
        { again: (p) => p.reload() },
      ),
    );
  });
  test("hosted: an expired sign-in request", async () => {
    expectClean(
      await sweepLight("anonymous", "hosted-expired", (p) => p.goto(`${server.url}/interaction/not-a-real-interaction`), {
        // SPEC-open: which 4xx; any client error, with a friendly page.
        status: "4xx",
      }),
    );
  });


  test("the browser never reached for a remote host", () => {
    expect(foreignRequests).toEqual([]);
  });
});
