import { expect, test, type Browser, type Page } from "@playwright/test";
import { catalogs, LOCALES, type Locale } from "../lib/i18n";
import { createTestApp, createTestUser, pkcePair } from "../tests/helpers/oidc";
import { bodyIsDark, CALLBACK, expectAccessible, expectNoHorizontalOverflow, newPersonPage, query, screenshot, server, switchTheme, THEME_AXE_RULES } from "./support";

/**
 * The hosted pages in the person's language: English, German, Spanish and French, chosen
 * by the language switch, the app's `ui_locales` or the browser's Accept-Language. Each page is
 * checked in each language for its words (the catalog's, no raw key or `{placeholder}` left), its
 * `lang`, overflow at 390 and 1280 px and axe, in the light and the dark theme (prefers-color-scheme;
 * the dark theme changes colours only, so there axe runs its colour rules, once per page);
 * screenshots under test-results/screenshots/lang-*.jpg.
 */
const foreignRequests: string[] = [];
const ACCEPT: Record<Locale, string> = { en: "en-US", de: "de-DE", es: "es-ES", fr: "fr-FR" };

type Theme = "light" | "dark";

async function pageIn(browser: Browser, locale: Locale, colorScheme: Theme = "light"): Promise<Page> {
  return newPersonPage(browser, foreignRequests, { locale: ACCEPT[locale], colorScheme });
}

/**
 * The page speaks `locale`: its lang, its heading, and nothing of the catalog's machinery shows; no
 * overflow at 390 and 1280 px, and axe clean (with `axeAtBothWidths`, at each width: the steps after
 * the password, consent and the second factor). With `theme: "dark"` axe runs only the rules a
 * change of colours can break (THEME_AXE_RULES), at 1280 px: the light pass ran every rule on the same
 * markup at both widths.
 */
async function expectPageIn(
  page: Page,
  locale: Locale,
  heading: string,
  label: string,
  options: { axeAtBothWidths?: boolean; theme?: Theme } = {},
): Promise<void> {
  const rules = options.theme === "dark" ? THEME_AXE_RULES : undefined;
  await expect(page.locator("html")).toHaveAttribute("lang", locale);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
  const text = await page.locator("body").innerText();
  expect(text, `${label}: an unfilled placeholder`).not.toMatch(/\{\w+\}/);
  const keys = Object.keys(catalogs().en).filter((key) => text.includes(key));
  expect(keys, `${label}: raw catalog keys on the page`).toEqual([]);
  if (!options.axeAtBothWidths) {
    await expectNoHorizontalOverflow(page);
    await expectAccessible(page, label, rules);
    return;
  }
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(100);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${label}: horizontal overflow at ${width} px`).toBeLessThanOrEqual(0);
    if (!rules || width === 1280) await expectAccessible(page, `${label} at ${width} px`, rules);
  }
}

let loginClientId: string;

function authUrl(clientId: string, extra: Record<string, string> = {}): string {
  const auth = new URL(`${server.issuer}/protocol/openid-connect/auth`);
  auth.search = new URLSearchParams({
    client_id: clientId,
    response_type: "code",
    redirect_uri: CALLBACK,
    scope: "openid profile",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    ...extra,
  }).toString();
  return auth.href;
}

test.beforeAll(async () => {
  await createTestUser(server.databaseUrl, { handle: "lina", password: "languages-password", displayName: "Lina Šimić-Castellanos" });
  ({ clientId: loginClientId } = await createTestApp(server.databaseUrl, {
    type: "login",
    name: "Käfer-Tagebuch",
    ownerHandle: "beetledev",
    scopes: ["svc:beetle.read", "svc:chat.read"],
    redirectUris: [CALLBACK],
  }));
});

test.afterAll(() => expect(foreignRequests).toEqual([]));

/** The page is drawn in `theme`: the dark palette is on exactly when the browser prefers it. */
async function expectTheme(page: Page, theme: Theme): Promise<void> {
  const { dark, background } = await bodyIsDark(page);
  expect(dark, `body background ${background} in the ${theme} theme`).toBe(theme === "dark");
}

/**
 * The checks of expectPageIn in the light theme, then, switched in place, in the dark one (its
 * colour rules; the markup is the same), and back: each page is opened once for both themes.
 */
async function expectPageInBothThemes(page: Page, locale: Locale, heading: string, label: string): Promise<void> {
  await expectPageIn(page, locale, heading, `${label} light`);
  await expectTheme(page, "light");
  await switchTheme(page, "dark");
  await expectPageIn(page, locale, heading, `${label} dark`, { theme: "dark" });
  await expectTheme(page, "dark");
  await switchTheme(page, "light");
}

test("every hosted page without a sign-in speaks the browser's language, at both widths, axe-clean, light and dark", async ({ browser }) => {
  for (const locale of LOCALES) {
    const words = catalogs()[locale];
    const page = await pageIn(browser, locale);

    // Device sign-in: the code form (oidc-provider's /device sets its CSRF cookie and sends the person on).
    await page.goto(`${server.url}/device`);
    await expectPageInBothThemes(page, locale, words["device.input.title"], `device ${locale}`);
    await expect(page.getByLabel(words["device.code"])).toBeVisible();
    await page.getByLabel(words["device.code"]).fill("BCDF-GHJK");
    await page.getByRole("button", { name: words["device.continue"] }).click();
    await expect(page.locator("#device-error")).toHaveText(words["device.error.not_found"]);
    await expectAccessible(page, `device refusal ${locale}`);
    await screenshot(page, `lang-device-${locale}`);
    await switchTheme(page, "dark");
    await expectAccessible(page, `device refusal ${locale} dark`, THEME_AXE_RULES);
    await screenshot(page, `lang-dark-device-${locale}`);
    await switchTheme(page, "light");

    // Signed out, the expired sign-out, and the sign-in service's own error page.
    await page.goto(`${server.url}/interaction/signed-out`);
    await expectPageInBothThemes(page, locale, words["signedOut.title"], `signed out ${locale}`);
    await page.goto(`${server.url}/interaction/logout`);
    await expectPageInBothThemes(page, locale, words["logout.expiredTitle"], `expired sign-out ${locale}`);
    await page.goto(`${server.issuer}/protocol/openid-connect/auth?client_id=no-such-app&response_type=code&scope=openid&redirect_uri=https%3A%2F%2Fexample.com%2Fcb`);
    await expectPageInBothThemes(page, locale, words["error.invalid_client.title"], `error page ${locale}`);
    if (locale !== "en") await screenshot(page, `lang-error-${locale}`);

    // The login page, in the app's ui_locales.
    await page.goto(authUrl(loginClientId, { ui_locales: locale }));
    await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    await expectPageInBothThemes(page, locale, words["login.title"], `login ${locale}`);
    await screenshot(page, `lang-login-${locale}`);
    await switchTheme(page, "dark");
    await screenshot(page, `lang-dark-login-${locale}`);
    await page.context().close();
  }
});

/** Signs in on the open hosted login page (its words in `locale`). */
async function signInOnHostedPage(page: Page, locale: Locale, handle: string, password: string): Promise<void> {
  const words = catalogs()[locale];
  await page.getByLabel(words["login.username"]).fill(handle);
  await page.getByLabel(words["login.password"]).fill(password);
  await page.getByRole("button", { name: words["login.submit"], exact: true }).click();
}

test("consent and the second-factor step in every language, light and dark, at both widths, axe-clean", async ({ browser }) => {
  test.setTimeout(240_000);
  // noor has no second factor (consent follows the password); tomas has one (the code is asked
  // for; the step is only looked at, so the factor's sealed secret is never opened).
  await createTestUser(server.databaseUrl, { handle: "noor", password: "languages-password", displayName: "Noor Ó Briain-Lefèvre" });
  const tomas = await createTestUser(server.databaseUrl, { handle: "tomas", password: "languages-password", displayName: "Tomás Weiß" });
  await query(
    server.databaseUrl,
    `INSERT INTO "SecondFactor" ("userId", kind, "secretBox", "confirmedAt") SELECT $1, 'totp', 'v1.not.a.secret', now()
      WHERE NOT EXISTS (SELECT 1 FROM "SecondFactor" WHERE "userId" = $1)`,
    [tomas.id],
  );
  for (const locale of LOCALES) {
    const words = catalogs()[locale];
    // One sign-in per language and step; the theme is switched on the same page.
    const consent = await pageIn(browser, locale);
    await consent.goto(authUrl(loginClientId, { scope: "openid profile svc:beetle.read svc:chat.read" }));
    await consent.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    await signInOnHostedPage(consent, locale, "noor", "languages-password");
    const consentTitle = words["consent.title.first"].replace("{app}", "Käfer-Tagebuch");
    await expect(consent.getByRole("heading", { level: 1 })).toHaveText(consentTitle);
    await expect(consent.getByRole("list", { name: words["consent.listLabel"] })).toContainText(words["scope.svc:beetle.read"]);
    for (const theme of ["light", "dark"] as const) {
      await consent.emulateMedia({ colorScheme: theme });
      await expectPageIn(consent, locale, consentTitle, `consent ${locale} ${theme}`, { axeAtBothWidths: true, theme });
      await expectTheme(consent, theme);
      if (theme === "dark") await screenshot(consent, `lang-dark-consent-${locale}`);
    }
    await consent.context().close();

    const second = await pageIn(browser, locale);
    await second.goto(authUrl(loginClientId));
    await second.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
    await signInOnHostedPage(second, locale, "tomas", "languages-password");
    await expect(second.getByRole("heading", { level: 1 })).toHaveText(words["secondFactor.title"]);
    await expect(second.getByLabel(words["secondFactor.code"], { exact: true })).toBeVisible();
    for (const theme of ["light", "dark"] as const) {
      await second.emulateMedia({ colorScheme: theme });
      await expectPageIn(second, locale, words["secondFactor.title"], `second factor ${locale} ${theme}`, { axeAtBothWidths: true, theme });
      await expectTheme(second, theme);
      if (theme === "dark") await screenshot(second, `lang-dark-second-factor-${locale}`);
    }
    await second.context().close();
  }
});

test("the language switch keeps the page and its step, and is remembered; ui_locales comes before Accept-Language", async ({ browser }) => {
  const { de, fr, es } = catalogs();
  const page = await pageIn(browser, "en");
  await page.goto(`${server.url}/device`);
  await page.getByLabel("Code").fill("BCDF-GHJK");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.locator("#device-error")).toBeVisible();
  const before = new URL(page.url());

  const languages = page.getByRole("navigation", { name: "Language" });
  await expect(languages.getByRole("link", { name: "English" })).toHaveAttribute("aria-current", "true");
  await languages.getByRole("link", { name: "Deutsch" }).click();
  await expectPageIn(page, "de", de["device.input.title"], "device after the switch");
  // Same step, same code, the refusal still explained: only the words changed.
  const after = new URL(page.url());
  expect(after.pathname).toBe(before.pathname);
  expect(after.searchParams.get("step")).toBe(before.searchParams.get("step"));
  expect(after.searchParams.get("error")).toBe(before.searchParams.get("error"));
  await expect(page.locator("#device-error")).toHaveText(de["device.error.not_found"]);
  await expect(page.getByRole("navigation", { name: de["hosted.language"] }).getByRole("link", { name: "Deutsch" })).toHaveAttribute(
    "aria-current",
    "true",
  );

  // Remembered: the next hosted page, without `lang`, is German although the browser asks for English.
  await page.goto(`${server.url}/interaction/signed-out`);
  await expectPageIn(page, "de", de["signedOut.title"], "signed out after the switch");
  // An app's ui_locales does not override the person's own choice…
  await page.goto(`${server.issuer}/protocol/openid-connect/auth?client_id=no-such-app&response_type=code&scope=openid&ui_locales=fr`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(de["error.invalid_client.title"]);
  await page.context().close();

  // …but comes before the browser's Accept-Language when the person chose nothing.
  const fresh = await pageIn(browser, "es");
  await fresh.goto(`${server.issuer}/protocol/openid-connect/auth?client_id=no-such-app&response_type=code&scope=openid&ui_locales=fr-CA%20es`);
  await expectPageIn(fresh, "fr", fr["error.invalid_client.title"], "error page with ui_locales");
  await fresh.goto(`${server.url}/interaction/signed-out`);
  await expectPageIn(fresh, "es", es["signedOut.title"], "Accept-Language without ui_locales");
  await fresh.context().close();
});

test("login, a refusal, the switch in the middle of a sign-in, and consent with its scopes, in the app's ui_locales (dark)", async ({ browser }) => {
  const { de, fr } = catalogs();
  // The browser asks for English; the app's ui_locales asks for German.
  const page = await pageIn(browser, "en", "dark");
  await page.goto(authUrl(loginClientId, { ui_locales: "de-CH en" }));
  await page.waitForURL(/\/interaction\/[A-Za-z0-9_-]+$/);
  await expectPageIn(page, "de", de["login.title"], "login de");
  await expect(page).toHaveTitle(`${de["login.pageTitle"]} · Platform`);
  await page.getByLabel(de["login.username"]).fill("lina");
  await page.getByLabel(de["login.password"]).fill("wrong-password");
  await page.getByRole("button", { name: de["login.submit"], exact: true }).click();
  await page.waitForURL(/error=invalid_credentials/);
  await expect(page.getByRole("alert")).toHaveText(de["login.error.invalid_credentials"]);
  await screenshot(page, "lang-dark-login-de-refused");

  // The switch keeps the interaction and the refusal; the next page (consent) stays French.
  const uid = new URL(page.url()).pathname;
  await page.getByRole("navigation", { name: de["hosted.language"] }).getByRole("link", { name: "Français" }).click();
  expect(new URL(page.url()).pathname).toBe(uid);
  await expectPageIn(page, "fr", fr["login.title"], "login fr");
  await expect(page.getByRole("alert")).toHaveText(fr["login.error.invalid_credentials"]);
  await page.getByLabel(fr["login.username"]).fill("lina");
  await page.getByLabel(fr["login.password"]).fill("languages-password");
  await page.getByRole("button", { name: fr["login.submit"], exact: true }).click();

  await expectPageIn(page, "fr", fr["consent.title.first"].replace("{app}", "Käfer-Tagebuch"), "consent fr");
  const permissions = page.getByRole("list", { name: fr["consent.listLabel"] });
  await expect(permissions).toContainText(fr["scope.svc:beetle.read"]);
  await expect(permissions).toContainText(fr["scope.profile"]);
  await expect(page.getByTestId("app-identity-owner")).toContainText("par ");
  await expectTheme(page, "dark");
  await screenshot(page, "lang-dark-consent-fr");
  await page.getByRole("button", { name: fr["consent.allow"] }).click();
  await page.waitForURL((url) => url.href.startsWith(CALLBACK));
  await page.context().close();
});
