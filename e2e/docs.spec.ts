import { expect, test } from "@playwright/test";
import * as webhookCommands from "../lib/cli/webhooks";
import { EVENT_AUDIENCE, EVENT_TYPES, eventEnvelopeSchema } from "../lib/schemas/events";
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE } from "../lib/schemas/webhooks";
import { expectAccessible, newContext, screenshot, server } from "./support";

/**
 * The docs pages as a reader meets them: every link between them leads somewhere (no 404, and a
 * link to `#anchor` finds its anchor), and the "Events and webhooks" page (issue 25) shows the
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
  // The docs pages are the ones the docs navigation lists (the API reference is Scalar's, rendered in the browser).
  await page.goto(`${server.url}/docs`);
  const docsPages = (
    await page.getByRole("navigation", { name: "Documentation" }).getByRole("link").evaluateAll((els) => els.map((e) => new URL((e as HTMLAnchorElement).href).pathname))
  ).filter((p) => p !== "/docs/api-reference");
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
  // Every command also takes --sandbox (issue 26), which the page says once for all of them.
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
