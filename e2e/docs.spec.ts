import { expect, test } from "@playwright/test";
import * as webhookCommands from "../lib/cli/webhooks";
import { EVENT_AUDIENCE, EVENT_TYPES, eventEnvelopeSchema } from "../lib/schemas/events";
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE } from "../lib/schemas/webhooks";
import { expectAccessible, expectNoHorizontalOverflow, newContext, screenshot, server } from "./support";

/**
 * The docs pages as a reader meets them: every link between them leads somewhere (no 404, and a
 * link to `#anchor` finds its anchor), and the "Events and webhooks" page shows the
 * whole catalog — each type with who receives it and an example body that its payload schema
 * accepts — the retry schedule, and every `apps webhooks` command the CLI has.
 */
test("every link on the docs pages resolves, anchors included", async ({ browser }) => {
  const foreignRequests: string[] = [];
  const page = await (await newContext(browser, foreignRequests)).newPage();
  const htmlOf = new Map<string, string>();
  async function html(path: string): Promise<{ status: number; text: string }> {
    const res = await fetch(`${server.url}${path}`, { redirect: "follow" });
    const text = await res.text();
    if (res.ok) htmlOf.set(path, text);
    return { status: res.status, text };
  }
  const broken: string[] = [];
  // The docs pages are the ones the docs navigation lists (the API reference too: rendered on the server since issue 28).
  await page.goto(`${server.url}/docs`);
  const docsPages = await page
    .getByRole("navigation", { name: "Documentation" })
    .getByRole("link")
    .evaluateAll((els) => els.map((e) => new URL((e as HTMLAnchorElement).href).pathname));
  expect(docsPages).toContain("/docs/api-reference");
  expect(docsPages).toContain("/docs/events");
  for (const href of docsPages) {
    await page.goto(`${server.url}${href}`);
    const ids = new Set(await page.locator("[id]").evaluateAll((els) => els.map((e) => e.id)));
    const links = await page.locator("main a[href], nav a[href]").evaluateAll((els) => els.map((e) => (e as HTMLAnchorElement).href));
    for (const link of new Set(links)) {
      const url = new URL(link);
      if (url.origin !== server.url) continue;
      const target = url.pathname + url.search;
      if (url.pathname === new URL(page.url()).pathname) {
        if (url.hash && !ids.has(decodeURIComponent(url.hash.slice(1)))) broken.push(`${href}: ${link} (no such anchor)`);
        continue;
      }
      const { status, text } = htmlOf.has(target) ? { status: 200, text: htmlOf.get(target)! } : await html(target);
      if (status >= 400) broken.push(`${href}: ${link} (${status})`);
      else if (url.hash && !text.includes(`id="${decodeURIComponent(url.hash.slice(1))}"`)) broken.push(`${href}: ${link} (no such anchor)`);
    }
  }
  expect(broken).toEqual([]);
  await page.context().close();
  expect(foreignRequests).toEqual([]);
});

test("Events and webhooks: the catalog with an example of each type, the retry schedule, the CLI", async ({ browser }) => {
  const foreignRequests: string[] = [];
  const page = await (await newContext(browser, foreignRequests)).newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(`${server.url}/docs`);
  await page.getByRole("navigation", { name: "Documentation" }).getByRole("link", { name: "Events and webhooks" }).click();
  await page.getByRole("heading", { name: "Events and webhooks", level: 1 }).waitFor();
  expect(new URL(page.url()).pathname).toBe("/docs/events");

  // The catalog: one row per type, saying who receives it; one example per type that the type's schema accepts.
  const rows = page.getByTestId("event-type");
  await expect(rows).toHaveCount(EVENT_TYPES.length);
  for (const [i, type] of EVENT_TYPES.entries()) {
    const row = rows.nth(i);
    await expect(row.locator("td").first()).toHaveText(type);
    if (EVENT_AUDIENCE[type].scope) await expect(row).toContainText(EVENT_AUDIENCE[type].scope!);
    const example = page.getByRole("figure").filter({ has: page.getByText(`${type} example`, { exact: true }) }).locator("pre");
    const parsed = eventEnvelopeSchema(type).safeParse(JSON.parse(await example.innerText()));
    expect(parsed.success, `${type}: ${parsed.error?.message}`).toBe(true);
  }

  // The retry schedule, from the same constant the workers default to.
  await expect(page.getByTestId("retry-row")).toHaveCount(DEFAULT_WEBHOOK_RETRY_SCHEDULE.length + 1);
  await expect(page.getByTestId("retry-row").last()).toContainText(`${DEFAULT_WEBHOOK_RETRY_SCHEDULE.length + 1}`);

  // The stream, its limit, and every CLI command as the CLI's own usage line has it.
  const main = page.locator("main");
  await expect(main).toContainText(`curl -N -H "Authorization: Bearer $TOKEN" "$API/events?types=chat.message.created"`);
  await expect(main).toContainText("Last-Event-ID");
  await expect(main).toContainText("WEBHOOKS_ALLOW_PRIVATE");
  // Every command also takes --sandbox, which the page says once for all of them.
  const usages = Object.values(webhookCommands).map((c) => c.usage.replace(" [--json]", "").replace(" [--sandbox]", ""));
  expect(Object.values(webhookCommands).every((c) => c.usage.includes("[--sandbox]"))).toBe(true);
  await expect(main).toContainText("add --sandbox to any apps webhooks command");
  expect(usages.length).toBeGreaterThanOrEqual(9);
  const cli = await page.getByRole("figure").filter({ has: page.getByText("apps webhooks", { exact: true }) }).locator("pre").innerText();
  for (const usage of usages) expect(cli, usage).toContain(usage);

  await expectAccessible(page, "docs events");
  await screenshot(page, "docs-events");
  expect(errors).toEqual([]);
  await page.context().close();
  expect(foreignRequests).toEqual([]);
});

/**
 * Every docs page has its "On this page" contents (one link per heading with an id, each
 * leading to it) and previous/next links in the sidebar's order; at 1280 px the code blocks take
 * the column beside the sidebar (they used to stop at two thirds of the width and scroll); at
 * 390 px nothing is wider than the screen.
 */
test("every docs page: contents, previous/next, code blocks as wide as the column, no overflow on a phone", async ({ browser }) => {
  const foreignRequests: string[] = [];
  const page = await (await newContext(browser, foreignRequests)).newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  // The pages in the sidebar's order, which previous/next follow.
  await page.goto(`${server.url}/docs`);
  const DOCS_PAGES = (
    await page
      .getByRole("navigation", { name: "Documentation" })
      .getByRole("link")
      .evaluateAll((els) => els.map((e) => new URL((e as HTMLAnchorElement).href).pathname))
  ).map((href) => ({ href }));
  expect(DOCS_PAGES.length).toBeGreaterThanOrEqual(10);
  for (const [i, { href }] of DOCS_PAGES.entries()) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}${href}`);
    const main = page.locator("main");
    const headingIds = await main.locator("article :is(h2, h3)[id]").evaluateAll((els) => els.map((e) => e.id));
    const toc = page.getByRole("navigation", { name: "On this page", exact: true });
    await expect(toc, href).toBeVisible();
    const tocTargets = await toc.getByRole("link").evaluateAll((els) => els.map((e) => decodeURIComponent(new URL((e as HTMLAnchorElement).href).hash.slice(1))));
    // Every h2 is in the contents, and every entry leads to a heading of the page.
    const h2Ids = await main.locator("article h2[id]").evaluateAll((els) => els.map((e) => e.id));
    expect(h2Ids.length, href).toBeGreaterThan(0);
    for (const id of h2Ids) expect(tocTargets, `${href}: contents lists #${id}`).toContain(id);
    for (const id of tocTargets) expect(headingIds, `${href}: contents entry #${id}`).toContain(id);

    const pager = page.getByRole("navigation", { name: "Previous and next page" });
    const previous = DOCS_PAGES[i - 1];
    const next = DOCS_PAGES[i + 1];
    if (previous) await expect(pager.locator('a[rel="prev"]'), href).toHaveAttribute("href", previous.href);
    else await expect(pager.locator('a[rel="prev"]')).toHaveCount(0);
    if (next) await expect(pager.locator('a[rel="next"]'), href).toHaveAttribute("href", next.href);
    else await expect(pager.locator('a[rel="next"]')).toHaveCount(0);

    // Code blocks span the text column, which spans what the sidebar leaves.
    const widths = await page.evaluate(() => {
      const column = document.querySelector("main article")!.getBoundingClientRect().width;
      // Those shown (a closed disclosure's are not laid out).
      const figures = [...document.querySelectorAll("main article figure:has(pre)")]
        .map((f) => f.getBoundingClientRect().width)
        .filter((w) => w > 0);
      return { column, figures };
    });
    expect(widths.column, `${href}: text column at 1280 px`).toBeGreaterThan(900);
    for (const w of widths.figures) expect(w, `${href}: a code block's width`).toBeGreaterThanOrEqual(widths.column - 1);
    await expectNoHorizontalOverflow(page);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${server.url}/docs/events`);
  await screenshot(page, "docs-layout");
  expect(errors).toEqual([]);
  await page.context().close();
  expect(foreignRequests).toEqual([]);
});

/**
 * The docs search, by keyboard only: "/" opens it, typing a keyword lists guide sections
 * and API operations from the index built at build time, arrows move, Enter opens the result; Ctrl+K
 * opens it too. axe finds nothing serious in the open dialog.
 */
test("docs search finds an API operation and a guide section by keyword, by keyboard only", async ({ browser }) => {
  const foreignRequests: string[] = [];
  const page = await (await newContext(browser, foreignRequests)).newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(`${server.url}/docs/scopes`);
  await page.waitForLoadState("networkidle");

  // "/" opens the search with the focus in its field.
  await page.keyboard.press("/");
  const dialog = page.getByRole("dialog", { name: "Search the docs" });
  await expect(dialog).toBeVisible();
  const field = dialog.getByRole("combobox", { name: "Search the docs and the API reference" });
  await expect(field).toBeFocused();
  await page.keyboard.type("poke");
  const options = dialog.getByRole("option");
  await expect(options.first()).toContainText("POST /users/{handle}/poke");
  await expect(options.first()).toHaveAttribute("aria-selected", "true");
  await expect(field).toHaveAttribute("aria-activedescendant", (await options.first().getAttribute("id"))!);
  await expectAccessible(page, "docs search");
  await screenshot(page, "docs-search");
  await page.keyboard.press("Enter");
  await page.waitForURL(`${server.url}/docs/api-reference#operation-pokeUser`);
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("heading", { name: /POST\s*\/users\/\{handle\}\/poke/, level: 3 })).toBeInViewport();

  // Ctrl+K opens it on any docs page; arrows reach a later result, Enter opens it.
  await page.keyboard.press("Control+k");
  await expect(field).toBeFocused();
  await page.keyboard.type("pkce");
  await expect(options.first()).toContainText("Authorization code with PKCE");
  const count = await options.count();
  expect(count).toBeGreaterThan(1);
  await page.keyboard.press("ArrowDown");
  await expect(options.nth(1)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("ArrowUp");
  await expect(options.first()).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await page.waitForURL(`${server.url}/docs/authentication#pkce`);
  await expect(page.getByRole("heading", { name: "Authorization code with PKCE (login clients)", level: 2 })).toBeInViewport();

  // A search without results says so; Escape closes it.
  await page.keyboard.press("/");
  await expect(field).toBeFocused();
  await page.keyboard.type("no-such-word-anywhere");
  await expect(dialog.getByRole("status")).toContainText("No results");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  expect(errors).toEqual([]);
  await page.context().close();
  expect(foreignRequests).toEqual([]);
});
