import { expect, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "@playwright/test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { DEMO_ACCOUNTS } from "../lib/seed/demo-accounts";
import { query } from "../tests/helpers/db";
import { server } from "./server";

export { server };

/** Screenshots of each main page at desktop and phone widths, kept whether the journeys pass or not. */
const SHOTS = path.resolve(import.meta.dirname, "..", "test-results", "screenshots");
/**
 * Full-page screenshots are JPEG at quality 80: they are looked at, not compared, and Chromium
 * encodes a full page as JPEG for about half the CPU of a PNG (0.10–0.13 against 0.19–0.21 CPU-s a
 * shot, measured on the sweep's pages), over some 450 shots a run.
 */
export const SHOT = { type: "jpeg", quality: 80 } as const;

/**
 * Screenshots are for people, who open them before calling a page done (STYLE): every one on a
 * developer's machine. In CI (`CI` set, as .ci/run sets it) no one opens them, so only the layout
 * sweep's pages that failed a check get theirs (with Playwright's own of every failing test); some
 * 450 full-page shots, their viewport changes and settling waits are about a tenth of the browser
 * journeys' time there. `SCREENSHOTS=all` takes every one in CI too.
 */
export const EVERY_SCREENSHOT = !process.env.CI || process.env.SCREENSHOTS === "all";

/** The fake login client's redirect URI: nothing listens there; the browser's request is intercepted. */
export const CALLBACK = "http://127.0.0.1:9/callback";

export const password = (handle: string) => DEMO_ACCOUNTS.find((a) => a.handle === handle)!.password;

/**
 * A desktop-sized context that may reach only our server (or `origin`, another server a spec
 * started) and the login client's fake callback. Anything else is aborted and its URL pushed onto
 * `foreignRequests`, which each spec checks is empty: the pages load no remote fonts, scripts or
 * telemetry.
 */
export async function newContext(
  browser: Browser,
  foreignRequests: string[],
  { origin = server.url, ...options }: BrowserContextOptions & { origin?: string } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    if (url.startsWith(CALLBACK)) return route.fulfill({ status: 200, contentType: "text/plain", body: "callback" });
    foreignRequests.push(url);
    return route.abort();
  });
  return context;
}

/** A fresh person: their own context (cookies) and page, with newContext's remote-request guard. */
export async function newPersonPage(
  browser: Browser,
  foreignRequests: string[],
  options: BrowserContextOptions = {},
): Promise<Page> {
  return (await newContext(browser, foreignRequests, options)).newPage();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  if (!EVERY_SCREENSHOT) return;
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ ...SHOT, path: path.join(SHOTS, `${name}-desktop.jpg`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(150);
  await page.screenshot({ ...SHOT, path: path.join(SHOTS, `${name}-phone.jpg`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** What axe reports of one violated rule (axe-core's Result, the fields the checks read). */
export interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core on the page as it is now: `rules` by id, or every rule of `tags`; its violations. axe is
 * put into each frame of a document once and run there (what @axe-core/playwright's legacy mode
 * does), and only the violations come back. @axe-core/playwright's default opens a blank page per
 * run to merge frames' results, evaluates axe's 560 KB source again in each, and sends every
 * passing node back: measured on the docs pages and the landing page, a run here costs 34–79 % less
 * CPU (0.32 against 1.5 CPU-s on the landing page), and the journeys run axe some 350 times. Our
 * pages have no cross-origin frames, the one thing that mode is for.
 */
export async function runAxe(page: Page, select: { rules: readonly string[] } | { tags: readonly string[] }): Promise<AxeViolation[]> {
  for (const frame of page.frames()) {
    if (!(await frame.evaluate(() => "axe" in window))) await frame.evaluate(AXE_SOURCE);
  }
  const runOnly = "rules" in select ? { type: "rule", values: [...select.rules] } : { type: "tag", values: [...select.tags] };
  return page.evaluate(async (runOnly) => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const results = await axe.run(document, { runOnly, resultTypes: ["violations"] });
    return results.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  }, runOnly);
}

/** WCAG 2.2 A/AA: every rule the sweep runs. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] as const;

/**
 * axe on the current page: no serious or critical violations (WCAG 2 A/AA rules, or only `rules`:
 * THEME_AXE_RULES for a page already checked whole in the other theme).
 */
export async function expectAccessible(page: Page, label: string, rules?: readonly string[]): Promise<void> {
  const violations = await runAxe(page, rules ? { rules } : { tags: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] });
  const bad = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${label}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  expect(bad).toEqual([]);
}

/** Nothing wider than the viewport (a long name, a secret id or a URL pushing the page sideways). */
export async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(100);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
  }
}

/**
 * Signs in through the portal's sign-in page and the platform's hosted login page: a demo account
 * unless `password` is given, on `base` (another server a spec started) unless it is ours. Waits
 * for `target` unless `arrive` is false (a second-factor step comes first).
 */
export async function signIn(
  page: Page,
  handle: string,
  target = "/apps",
  { password: given, base = server.url, arrive = true }: { password?: string; base?: string; arrive?: boolean } = {},
): Promise<void> {
  await page.goto(`${base}${target}`);
  await page.waitForURL(/\/signin\?/);
  await page.getByRole("button", { name: "Continue with your platform account" }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByLabel("Username").fill(handle);
  await page.getByLabel("Password").fill(given ?? password(handle));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  if (arrive) await page.waitForURL(`${base}${target}`);
}

export async function registerApp(
  page: Page,
  app: { name: string; type: "api" | "login"; scopes: string[]; redirectUri?: string; device?: boolean; requirePar?: boolean },
  /** Called on the filled form, before it is sent (a screenshot, a check). */
  beforeSubmit?: () => Promise<void>,
): Promise<string> {
  await page.goto(`${server.url}/apps/new`);
  await page.getByLabel("Application name").fill(app.name);
  await page.getByLabel("Description").fill(`${app.name}: an end-to-end test application.`);
  if (app.type === "login") await page.getByText("Login client", { exact: true }).click();
  for (const scope of app.scopes) await page.getByRole("checkbox", { name: new RegExp(`^${scope.replace(".", "\\.")}`) }).check();
  if (app.redirectUri) await page.getByLabel("Redirect URIs 1", { exact: true }).fill(app.redirectUri);
  if (app.device) await page.getByRole("checkbox", { name: /^Allow device sign-in/ }).check();
  if (app.requirePar) await page.getByRole("checkbox", { name: /^Require pushed authorization requests/ }).check();
  await beforeSubmit?.();
  await page.getByRole("button", { name: "Register application" }).click();
  await page.waitForURL(/\/apps\/(api|app)_[A-Za-z0-9]+$/);
  return page.url().split("/").pop()!;
}

export function clientCredentials(clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }),
  });
}

export function readChat(accessToken: string): Promise<Response> {
  return fetch(`${server.apiUrl}/global-chat/messages?limit=2`, { headers: { authorization: `Bearer ${accessToken}` } });
}

export async function expectOAuthError(response: Promise<Response>, error: string): Promise<void> {
  const res = await response;
  expect(res.status).toBe(401);
  expect(((await res.json()) as { error: string }).error).toBe(error);
}

/** A voided (or expired) access token: 401 invalid_token at the API. */
export async function expectInvalidToken(accessToken: string): Promise<void> {
  const res = await readChat(accessToken);
  expect(res.status).toBe(401);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_token");
}

/** The id of the stored secret with this value (the database holds only its hash). */
export async function secretId(secret: string): Promise<string> {
  const hash = createHash("sha256").update(secret).digest("hex");
  const rows = await query<{ id: string }>(server.databaseUrl, `SELECT id FROM "ClientSecret" WHERE hash = $1`, [hash]);
  return rows[0]!.id;
}

export async function appStatus(clientId: string): Promise<string> {
  const rows = await query<{ status: string }>(server.databaseUrl, `SELECT status FROM "Application" WHERE "clientId" = $1`, [clientId]);
  return rows[0]!.status;
}

export { query };

/**
 * Whether the page's body is drawn dark (dark mode by prefers-color-scheme). Whatever
 * notation the browser computes (lab, oklch, rgb), a 1-pixel canvas gives sRGB back; dark is a
 * luma under half. Returns the computed colour too, for the failure message.
 */
export async function bodyIsDark(page: Page): Promise<{ dark: boolean; background: string }> {
  const [background, luma] = await page.evaluate(() => {
    const color = getComputedStyle(document.body).backgroundColor;
    const context = document.createElement("canvas").getContext("2d")!;
    context.fillStyle = color;
    context.fillRect(0, 0, 1, 1);
    const [r, g, b] = context.getImageData(0, 0, 1, 1).data;
    return [color, 0.2126 * r! + 0.7152 * g! + 0.0722 * b!] as const;
  });
  return { dark: luma < 128, background };
}

/** One failed check of the layout sweep (e2e/layout-sweep.spec.ts). */
export interface LayoutProblem {
  width: number;
  check: "status" | "overflow" | "clipped" | "tall" | "squeezed" | "small" | "sideways" | "console" | "request" | "axe" | "dialog" | "theme";
  detail: string;
}

/** What the browser measures at one width: see `checkLayout`. */
interface Measured {
  overflow: number;
  widest: string[];
  clipped: string[];
  tall: string[];
  squeezed: string[];
  small: string[];
  sideways: string[];
  dialogs: string[];
}

/**
 * Runs in the page. Text is measured per text node (a Range), not per element: a `flex` paragraph
 * whose icon has no size keeps its own width while its text run is squeezed into a column one word
 * wide and grows taller than the screen.
 */
function measureLayout(): Measured {
  const root = document.documentElement;
  const vw = root.clientWidth;
  const vh = window.innerHeight;
  const describe = (el: Element) => {
    const id = el.id ? `#${el.id}` : "";
    const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).slice(0, 4).join(".")}` : "";
    return `<${el.tagName.toLowerCase()}${id}${cls}>`;
  };
  /** Inside something that scrolls or clips (a code block, a table wrapper, a line clamp): its own business. */
  const scrollsInside = (el: Element | null) => {
    for (let node = el; node && node !== document.body && node !== root; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.overflowX !== "visible" || style.overflowY !== "visible") return true;
    }
    return false;
  };
  /** The first text inside `box` that runs past its left or right edge, if any. */
  const cutText = (box: Element, edge: DOMRect) => {
    const texts = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      const text = node.textContent?.trim();
      if (!text || node.parentElement?.closest("[hidden]")) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const r = range.getBoundingClientRect();
      if (r.width > 0 && (r.right > edge.right + 1 || r.left < edge.left - 1)) return text.slice(0, 40);
    }
    return null;
  };
  const widest: string[] = [];
  const clipped: string[] = [];
  const tall: string[] = [];
  const squeezed: string[] = [];
  for (const el of Array.from(document.body.querySelectorAll("*"))) {
    const rect = el.getBoundingClientRect();
    if (rect.right > vw + 1 && rect.width > 0 && !scrollsInside(el.parentElement) && getComputedStyle(el).position !== "fixed") {
      widest.push(`${describe(el)} right edge at ${Math.round(rect.right)} px`);
    }
    // Content cut off at a box's edge without an ellipsis or a line clamp (a long name past a card's
    // edge); scrolling boxes and screen-reader-only text are fine.
    const style = getComputedStyle(el);
    if (
      ["hidden", "clip"].includes(style.overflowX) &&
      !["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) &&
      parseFloat(style.width) > 1 &&
      style.clipPath === "none" &&
      el.scrollWidth > el.clientWidth + 1 &&
      style.textOverflow !== "ellipsis" &&
      style.getPropertyValue("-webkit-line-clamp") === "none"
    ) {
      // Only text counts (a decorative shape bleeding off a card is by design).
      const cut = cutText(el, rect);
      if (cut) clipped.push(`${describe(el)} cuts off "${cut}" at its edge (${el.clientWidth} of ${el.scrollWidth} px shown)`);
    }
    if (["svg", "img", "video", "canvas", "iframe"].includes(el.tagName.toLowerCase()) && rect.height > vh && !scrollsInside(el.parentElement)) {
      tall.push(`${describe(el)} is ${Math.round(rect.height)} px tall`);
    }
  }
  /** Screen-reader-only text (a 1 px clipped box) is not read by the eye: its size does not matter. */
  const screenReaderOnly = (el: Element | null) => {
    for (let node = el; node && node !== document.body; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.clipPath !== "none" && node.getBoundingClientRect().width <= 1) return true;
      if (style.clip && style.clip !== "auto" && node.getBoundingClientRect().width <= 1) return true;
    }
    return false;
  };
  const small: string[] = [];
  // A table wider than the box it scrolls in hides its right-hand columns (status, latency,
  // actions) off screen; below the width where it fits it must become cards.
  const sideways: string[] = [];
  // A table that promises stacked cards below a width (components/ui/stack-table.tsx, data-stack)
  // must keep it, even where it happens to fit: a list of names squeezed beside three columns of
  // numbers on a phone is what the cards are for.
  const STACK_BELOW: Record<string, number> = { sm: 640, lg: 1024 };
  for (const table of Array.from(document.querySelectorAll("table[data-stack]"))) {
    const below = STACK_BELOW[table.getAttribute("data-stack") ?? ""] ?? 0;
    if (vw < below && table.getBoundingClientRect().height > 0 && getComputedStyle(table).display === "table") {
      sideways.push(`${describe(table)} is drawn as a table at ${vw} px; below ${below} px its rows must be stacked cards`);
    }
  }
  for (const table of Array.from(document.querySelectorAll("table"))) {
    const rect = table.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    for (let node = table.parentElement; node && node !== document.body; node = node.parentElement) {
      if (getComputedStyle(node).overflowX === "visible") continue;
      const box = node.getBoundingClientRect();
      if (rect.right > box.right + 1) sideways.push(`${describe(table)} is ${Math.round(rect.width)} px wide in a ${Math.round(box.width)} px box that scrolls sideways`);
      break;
    }
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent?.trim() ?? "";
    const parent = node.parentElement;
    if (!text || !parent || parent.closest("script, style, noscript, [hidden]")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (box.height === 0) continue;
    const label = `${describe(parent)} "${text.slice(0, 40)}${text.length > 40 ? "…" : ""}"`;
    // No text under 12 px, an SVG's text measured as drawn (its font size times the
    // drawing's scale: a chart scaled down to a phone's width shrank its labels to ~9 px).
    let fontPx = parseFloat(getComputedStyle(parent).fontSize);
    if (parent instanceof SVGGraphicsElement) fontPx *= Math.abs(parent.getScreenCTM()?.a ?? 1);
    if (fontPx < 11.95 && small.length < 8 && !screenReaderOnly(parent)) small.push(`${label} at ${fontPx.toFixed(1)} px`);
    if (box.right > vw + 1 && !scrollsInside(parent)) widest.push(`text ${label} right edge at ${Math.round(box.right)} px`);
    if (box.height > vh && !scrollsInside(parent)) tall.push(`${label}: a text run ${Math.round(box.height)} px tall`);
    const words = text.split(/\s+/).length;
    const lines = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    if (words >= 5 && lines >= 5 && lines >= words * 0.7 && box.width < 160) {
      squeezed.push(`${label}: ${words} words on ${lines} lines in ${Math.round(box.width)} px`);
    }
  }
  const dialogs = Array.from(document.querySelectorAll("dialog[open]")).flatMap((dialog) => {
    const align = getComputedStyle(dialog).textAlign;
    const problems: string[] = [];
    if (!["start", "left"].includes(align)) problems.push(`${describe(dialog)} text-align is ${align}`);
    if (dialog.parentElement !== document.body) problems.push(`${describe(dialog)} is inside ${describe(dialog.parentElement!)}, not a portal to <body>`);
    return problems;
  });
  // The deepest culprits come last in document order.
  return { overflow: root.scrollWidth - vw, widest: widest.slice(-4), clipped, tall, squeezed, small, sideways, dialogs };
}

/** The checks at the viewport's current width (see `checkLayout`), with a full-page screenshot (in CI, only of a page with a problem). */
async function checkAtWidth(page: Page, width: number, name: string, axeRules?: readonly string[]): Promise<LayoutProblem[]> {
  const problems: LayoutProblem[] = [];
  const m = await page.evaluate(measureLayout);
  if (m.overflow > 0) {
    problems.push({ width, check: "overflow", detail: `document ${m.overflow} px wider than the viewport: ${m.widest.join("; ")}` });
  }
  for (const detail of m.clipped) problems.push({ width, check: "clipped", detail });
  for (const detail of m.tall) problems.push({ width, check: "tall", detail });
  for (const detail of m.squeezed) problems.push({ width, check: "squeezed", detail });
  for (const detail of m.small) problems.push({ width, check: "small", detail });
  for (const detail of m.sideways) problems.push({ width, check: "sideways", detail });
  for (const detail of m.dialogs) problems.push({ width, check: "dialog", detail });
  // Either these rules (none: axe is not run) or every WCAG 2.2 A/AA one.
  const violations = axeRules?.length === 0 ? [] : await runAxe(page, axeRules ? { rules: axeRules } : { tags: WCAG_TAGS });
  for (const v of violations.filter((v) => v.impact === "serious" || v.impact === "critical")) {
    const where = v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ");
    problems.push({ width, check: "axe", detail: `${v.id} (${v.impact}, ${v.nodes.length} nodes) ${v.help}: ${where}` });
  }
  if (EVERY_SCREENSHOT || problems.length) await page.screenshot({ ...SHOT, path: path.join(SHOTS, `sweep-${name}-${width}.jpg`), fullPage: true });
  return problems;
}

/**
 * The axe rules a change of colours alone can break: the page's structure, names and sizes are the
 * light pass's, and the dark theme changes colours only (CSS custom properties).
 */
export const THEME_AXE_RULES = ["color-contrast", "link-in-text-block"] as const;

/**
 * Emulates the browser's preferred colour scheme and brings the colour transitions it starts
 * (Tailwind's transition-colors, 150 ms) to their end at once: axe measuring mid-transition sees
 * colours of neither theme.
 */
export async function switchTheme(page: Page, theme: "light" | "dark"): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate(() => {
    for (const animation of document.getAnimations()) if (animation instanceof CSSTransition) animation.finish();
  });
}

/** A problem when the page's body is not drawn in `theme` (dark exactly when the browser prefers it). */
async function themeProblems(page: Page, width: number, theme: "light" | "dark"): Promise<LayoutProblem[]> {
  const { dark, background } = await bodyIsDark(page);
  return dark === (theme === "dark") ? [] : [{ width, check: "theme", detail: `body background ${background} in the ${theme} theme` }];
}

/**
 * The layout sweep's checks for one page: `open` navigates (or acts) at 1280×800, and `again`
 * (default: `open`) loads it a second time at 390×844, as a phone opens it; at each width: the
 * document is no wider than the viewport; no content cut off at a box's
 * edge (overflow hidden without an ellipsis or line clamp); no element taller than the
 * viewport without scrolling inside (text runs, images, SVGs; the page, main and the containers
 * that scroll are the page's business); no text squeezed to a word per line; no text under 12 px
 * (an SVG's as drawn) and no table wider than the box it scrolls in; an open dialog is a
 * child of <body> and left-aligned; axe finds nothing serious or critical (WCAG 2.2 A/AA). Over the
 * whole visit: no console error, no failed request (a missing favicon counts), and the document's
 * status is `status` (default: below 400; "4xx": any client error). Writes a full-page screenshot per width to
 * test-results/screenshots/sweep-<name>-<width>.jpg.
 *
 * Any console error or uncaught exception fails the page (the one exemption: the "Failed to load
 * resource" line Chromium logs for a document that answers the 4xx it is expected to). With two
 * loads, an intermittent defect, such as a hydration mismatch that shows only when the server's and
 * the browser's clocks straddle a boundary (React #418), gets two chances; and the phone width is
 * checked as a phone renders it from the start, not as a desktop page narrowed afterwards. (The
 * second load used to come after both widths' checks, watching only the console: a fifth of the
 * sweep's CPU for what this load now does as well.)
 *
 * `dark`: at each width the page is then switched to the dark theme in place (prefers-color-scheme
 * emulated, no second visit: the theme is CSS only, app/globals.css and lib/oidc/html.ts) and checked
 * again (the layout checks at both widths, axe's colour rules at 1280 px), with its screenshot named
 * sweep-dark-<name>-<width>.jpg; the body must be drawn dark there
 * and light before. A page whose script reads the theme once when it opens (Scalar's client) needs a
 * visit per theme instead (e2e/api-reference.spec.ts).
 */
export async function checkLayout(
  page: Page,
  name: string,
  open: (page: Page) => Promise<unknown>,
  options: { status?: number | "4xx"; again?: (page: Page) => Promise<unknown>; dark?: boolean } = {},
): Promise<LayoutProblem[]> {
  const problems: LayoutProblem[] = [];
  const consoleErrors: string[] = [];
  const failed: string[] = [];
  const documents: { url: string; status: number }[] = [];
  const onConsole = (message: import("@playwright/test").ConsoleMessage) => {
    if (message.type() !== "error") return;
    // The document's own 4xx (a 404 page) is checked by its status below, not here.
    const own = options.status !== undefined && documents.some((d) => d.status >= 400 && d.url === message.location().url);
    if (!own || !message.text().startsWith("Failed to load resource")) consoleErrors.push(`${message.text()} (${message.location().url})`);
  };
  const onPageError = (error: Error) => consoleErrors.push(`uncaught: ${error.message}`);
  const onResponse = (response: import("@playwright/test").Response) => {
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      documents.push({ url: response.url(), status: response.status() });
      return;
    }
    if (response.status() >= 400) failed.push(`${response.status()} ${request.method()} ${response.url()}`);
  };
  const onRequestFailed = (request: import("@playwright/test").Request) => {
    const error = request.failure()?.errorText ?? "failed";
    // A prefetch or stream cut short by the next navigation is not a defect.
    if (error !== "net::ERR_ABORTED") failed.push(`${error} ${request.method()} ${request.url()}`);
  };
  page.on("console", onConsole);
  page.on("pageerror", onPageError);
  page.on("response", onResponse);
  page.on("requestfailed", onRequestFailed);
  // The status of the document the last load ended on.
  const checkStatus = (width: number) => {
    const last = documents.at(-1);
    if (!last) return;
    const ok =
      options.status === undefined
        ? last.status < 400
        : options.status === "4xx"
          ? last.status >= 400 && last.status < 500
          : last.status === options.status;
    if (!ok) problems.push({ width, check: "status", detail: `${last.url} answered ${last.status}` });
  };
  try {
    await mkdir(SHOTS, { recursive: true });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await (width === 1280 ? open : (options.again ?? open))(page);
      await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => undefined);
      checkStatus(width);
      await page.waitForTimeout(200);
      problems.push(...(await checkAtWidth(page, width, name)));
      if (options.dark) {
        problems.push(...(await themeProblems(page, width, "light")));
        await switchTheme(page, "dark");
        problems.push(...(await themeProblems(page, width, "dark")));
        // The colour rules once, at 1280 px: the dark theme's colours are the same tokens at both
        // widths, and the light pass already ran every rule at 390 px. Each axe run of colour-contrast
        // is about a second of the renderer's CPU, the sweep's largest cost after the light pass.
        const rules = width === 1280 ? THEME_AXE_RULES : [];
        for (const problem of await checkAtWidth(page, width, `dark-${name}`, rules)) problems.push({ ...problem, detail: `(dark) ${problem.detail}` });
        await switchTheme(page, "light");
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  } finally {
    page.off("console", onConsole);
    page.off("pageerror", onPageError);
    page.off("response", onResponse);
    page.off("requestfailed", onRequestFailed);
  }
  for (const detail of consoleErrors) problems.push({ width: 0, check: "console", detail });
  for (const detail of failed) problems.push({ width: 0, check: "request", detail });
  return problems;
}

/**
 * The person's side of device sign-in in the browser, from the code page (already open:
 * verification_uri, or verification_uri_complete with the code filled in) to the success page:
 * enters the code unless it is there, confirms it, signs in and allows if asked. `onStep` runs on
 * each page before it is answered (checks, axe, screenshots).
 */
export async function completeDeviceSignInInBrowser(
  page: Page,
  options: {
    userCode: string;
    handle: string;
    password: string;
    onStep?: (step: "confirm" | "login" | "consent" | "success") => Promise<void>;
  },
): Promise<void> {
  const code = page.getByLabel("Code");
  if (!(await code.inputValue())) await code.fill(options.userCode);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "Is this the code on your device?" })).toBeVisible();
  await options.onStep?.("confirm");
  await page.getByRole("button", { name: "Continue" }).click();
  for (let step = 0; step < 3; step++) {
    await page.waitForLoadState();
    const heading = (await page.locator("h1").first().textContent())?.trim() ?? "";
    if (heading === "You're signed in on your device") {
      await options.onStep?.("success");
      return;
    }
    if (heading === "Sign in") {
      await options.onStep?.("login");
      await page.getByLabel("Username").fill(options.handle);
      await page.getByLabel("Password").fill(options.password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
    } else if (heading.startsWith("Allow ") || heading.endsWith(" now asks for more")) {
      // The consent page: first time ("Allow … to access your account?") or more scopes than allowed before.
      await options.onStep?.("consent");
      await page.getByRole("button", { name: "Allow" }).click();
    } else {
      throw new Error(`device sign-in stopped on "${heading}" (${page.url()})`);
    }
    await page.waitForURL((url) => !url.pathname.endsWith("/login") && !url.pathname.endsWith("/consent"));
  }
  throw new Error("device sign-in did not reach its success page");
}
