import { expect, test, type Page, type Request, type Response } from "@playwright/test";
import { createTestApp, createTestUser, pkcePair } from "../tests/helpers/oidc";
import { CALLBACK, newContext, server, signIn } from "./support";

/**
 * JavaScript budgets: the script bytes each page makes the browser download, summed over
 * every script response as sent on the wire (gzip: the server compresses), from the navigation
 * until the network is idle, so lazily loaded chunks count too. Routing (newContext) disables the
 * HTTP cache, so every visit pays its full price.
 *
 * Budgets: the measured sizes (Next 16.4 production build) with about 20% headroom.
 * - App Router pages (landing, docs, My apps): 146 KB each, React and Next's runtime nearly all.
 * - The API reference: its operations are rendered on the server, so the page is a docs
 *   page (budget under the 200 KB) until someone opens the interactive client; that click
 *   loads about 1.2 MB of Scalar's own chunks, which no other page may load (checked below).
 * - The hosted login page: one small script of its own for passkeys
 *   (public/hosted/passkey.js, @simplewebauthn/browser bundled by esbuild; ~5.2 KB raw, ~2.4 KB
 *   gzip), no React or Next runtime; budget 20 KB on the wire. The consent page: none at all.
 */
const KB = 1024;
const BUDGETS = {
  landing: 175 * KB,
  docs: 175 * KB,
  myApps: 175 * KB,
  hostedLogin: 20 * KB,
  consent: 0,
  apiReferenceFirstLoad: 175 * KB,
  apiReference: 1400 * KB,
} as const;
type PageName = keyof typeof BUDGETS;

const PASSWORD = "js-budget-password";

interface Measured {
  /** Bytes on the wire (the encoded body). */
  transferred: number;
  /** Bytes after decompression, for the report. */
  decoded: number;
  scripts: string[];
  entries: { path: string; transferred: number; decoded: number }[];
}

/**
 * Collects every script response of `page` from now on. Each body is read as it arrives (a body
 * read later may be gone after a navigation); a script that fails to load (no response, a 4xx or
 * 5xx, or a body that cannot be read) fails the measurement instead of counting as 0 bytes.
 */
function recordScripts(page: Page): { stop(): Promise<Measured> } {
  const seen: Promise<{ path: string; transferred: number; decoded: number }>[] = [];
  const failures: string[] = [];
  const onResponse = (response: Response) => {
    if (response.request().resourceType() !== "script") return;
    const path = new URL(response.url()).pathname;
    seen.push(
      (async () => {
        if (!response.ok()) throw new Error(`script ${path} answered ${response.status()}`);
        const body = await response.body().catch((error: unknown) => {
          throw new Error(`script ${path}: body unreadable (${error instanceof Error ? error.message : String(error)})`);
        });
        const sizes = await response.request().sizes();
        return { path, transferred: sizes.responseBodySize, decoded: body.length };
      })(),
    );
  };
  const onRequestFailed = (request: Request) => {
    if (request.resourceType() === "script") failures.push(`script ${request.url()} failed: ${request.failure()?.errorText ?? "unknown"}`);
  };
  page.on("response", onResponse);
  page.on("requestfailed", onRequestFailed);
  return {
    async stop() {
      page.off("response", onResponse);
      page.off("requestfailed", onRequestFailed);
      const settled = await Promise.allSettled(seen);
      for (const s of settled) if (s.status === "rejected") failures.push(s.reason instanceof Error ? s.reason.message : String(s.reason));
      expect(failures, "every script the page loads arrives whole").toEqual([]);
      const entries = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
      return {
        transferred: entries.reduce((sum, e) => sum + e.transferred, 0),
        decoded: entries.reduce((sum, e) => sum + e.decoded, 0),
        scripts: entries.map((e) => e.path),
        entries,
      };
    },
  };
}

const results: Partial<Record<PageName, Measured>> = {};
/** Scripts only the API reference loads, after its first load: Scalar's chunks. */
const scalarChunks = new Set<string>();

function check(name: PageName, measured: Measured): void {
  results[name] = measured;
  const line = `${name}: ${(measured.transferred / KB).toFixed(1)} KB of JS transferred (${(measured.decoded / KB).toFixed(1)} KB decoded, ${measured.scripts.length} scripts); budget ${(BUDGETS[name] / KB).toFixed(0)} KB`;
  console.log(line);
  test.info().annotations.push({ type: "js-budget", description: line });
  if (name !== "apiReference" && name !== "apiReferenceFirstLoad") {
    expect(measured.scripts.filter((script) => scalarChunks.has(script)), `${name} loads Scalar's chunks`).toEqual([]);
  }
  expect(measured.transferred, `${name} ships more JS than its budget:\n${measured.scripts.join("\n")}`).toBeLessThanOrEqual(BUDGETS[name]);
}

/** Visits `path` in a fresh page and measures its JS until the network is idle. */
async function measureVisit(page: Page, path: string): Promise<Measured> {
  const recorder = recordScripts(page);
  await page.goto(`${server.url}${path}`);
  await page.waitForLoadState("networkidle");
  return recorder.stop();
}

test.describe("JS budgets per page", () => {
  test.describe.configure({ mode: "serial" });
  const foreignRequests: string[] = [];

  // First: it names Scalar's chunks, which no other page may load.
  test("API reference: the page, then Scalar's chunks when the interactive client opens", async ({ browser }) => {
    const page = await (await newContext(browser, foreignRequests)).newPage();
    const before = await measureVisit(page, "/docs/api-reference");
    await expect(page.getByRole("heading", { name: /GET\s*\/users\/\{username\}/, level: 3 })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Social Platform Developer API" })).toHaveCount(0);
    check("apiReferenceFirstLoad", before);

    const recorder = recordScripts(page);
    await page.getByRole("button", { name: "Open the interactive client" }).click();
    await expect(page.getByRole("heading", { name: "Social Platform Developer API", level: 1 })).toBeVisible({ timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    const opened = await recorder.stop();
    for (const path of opened.scripts) if (!before.scripts.includes(path)) scalarChunks.add(path);
    // Scalar did arrive on the click, in chunks of its own.
    expect(scalarChunks.size).toBeGreaterThan(0);
    const all = [...before.entries, ...opened.entries];
    check("apiReference", {
      transferred: all.reduce((sum, e) => sum + e.transferred, 0),
      decoded: all.reduce((sum, e) => sum + e.decoded, 0),
      scripts: all.map((e) => e.path),
      entries: all,
    });
    await page.context().close();
  });

  test("landing page", async ({ browser }) => {
    const page = await (await newContext(browser, foreignRequests)).newPage();
    check("landing", await measureVisit(page, "/"));
    await page.context().close();
  });

  test("a docs page", async ({ browser }) => {
    const page = await (await newContext(browser, foreignRequests)).newPage();
    check("docs", await measureVisit(page, "/docs/scopes"));
    await page.context().close();
  });

  test("My apps, signed in", async ({ browser }) => {
    const page = await (await newContext(browser, foreignRequests)).newPage();
    await signIn(page, "alice");
    check("myApps", await measureVisit(page, "/apps"));
    await page.context().close();
  });

  test("hosted login and consent pages", async ({ browser }) => {
    await createTestUser(server.databaseUrl, { handle: "jsbudget_user", password: PASSWORD, displayName: "Budget Tester" });
    const { clientId } = await createTestApp(server.databaseUrl, {
      type: "login",
      name: "JS Budget Consent App",
      scopes: ["svc:stats.read"],
      redirectUris: [CALLBACK],
    });
    const page = await (await newContext(browser, foreignRequests)).newPage();
    const url = new URL(`${server.issuer}/protocol/openid-connect/auth`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      redirect_uri: CALLBACK,
      scope: "openid profile",
      state: "js-budget",
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
    }).toString();

    let recorder = recordScripts(page);
    await page.goto(url.href);
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    await page.waitForLoadState("networkidle");
    const login = await recorder.stop();
    check("hostedLogin", login);
    // Exactly the passkey script, allowed by the page's CSP (its nonce) and running: it shows the
    // passkey button, which the HTML hides from browsers without JavaScript.
    expect(login.scripts).toEqual(["/hosted/passkey.js"]);
    await expect(page.locator("script")).toHaveCount(1);
    await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toBeVisible();

    await page.getByLabel("Username").fill("jsbudget_user");
    await page.getByLabel("Password").fill(PASSWORD);
    recorder = recordScripts(page);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByRole("heading", { name: /Allow JS Budget Consent App/ })).toBeVisible();
    await page.waitForLoadState("networkidle");
    check("consent", await recorder.stop());
    // Not even a script the CSP would block, nor an inline one: the document holds none.
    await expect(page.locator("script")).toHaveCount(0);
    await page.context().close();
  });

  test("the browser never reached for a remote host", () => {
    expect(foreignRequests).toEqual([]);
  });

  test.afterAll(() => {
    const rows = Object.entries(results).map(([name, m]) => `${name.padEnd(22)} ${(m.transferred / KB).toFixed(1).padStart(8)} KB`);
    console.log(`JS transferred per page:\n${rows.join("\n")}`);
  });
});
