import { expect, test } from "@playwright/test";
import { expectAccessible, newContext, screenshot, server } from "./support";

/**
 * The pages anyone can see, in Chromium: security headers, the docs (the endpoint list against the
 * discovery document, the API reference rendered from our OpenAPI document), the sign-in page; axe
 * on each, no console errors, nothing fetched from a remote host.
 */
test("serves the public pages with security headers, offline-only assets and no serious a11y issues", async ({ browser }) => {
  const res = await fetch(`${server.url}/`);
  expect(res.status).toBe(200);
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");

  const foreignRequests: string[] = [];
  const page = await (await newContext(browser, foreignRequests)).newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(`${server.url}/`);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Build on the platform");
  await expectAccessible(page, "landing");
  await screenshot(page, "landing");

  await page.goto(`${server.url}/docs`);
  await page.getByRole("heading", { name: "Getting started", level: 1 }).waitFor();
  await expectAccessible(page, "docs");
  await screenshot(page, "docs");

  // The authentication page lists every endpoint the discovery document does, at the same URL.
  const discovery = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  const advertised = Object.entries(discovery).filter(([key, value]) => typeof value === "string" && (key.endsWith("_endpoint") || key === "jwks_uri"));
  expect(advertised.map(([key]) => key)).toEqual(
    expect.arrayContaining(["authorization_endpoint", "token_endpoint", "end_session_endpoint", "jwks_uri", "userinfo_endpoint", "introspection_endpoint", "revocation_endpoint"]),
  );
  await page.goto(`${server.url}/docs/authentication`);
  const listed = await page.getByTestId("endpoint-url").allTextContents();
  for (const [key, url] of advertised) expect(listed, key).toContain(url);
  await page.getByRole("heading", { name: "Revocation and rotation" }).waitFor();
  await expectAccessible(page, "docs authentication");
  await screenshot(page, "docs-authentication");

  // The reference is rendered on the server from the project's own OpenAPI document; Scalar's
  // interactive client loads when asked for, from the same document.
  const openapi = (await (await fetch(`${server.apiUrl}/openapi.json`)).json()) as { info: { title: string } };
  await page.goto(`${server.url}/docs/api-reference`);
  await expect(page.getByRole("heading", { name: "API reference", level: 1 })).toBeVisible();
  await expect(page.getByText(openapi.info.title).first()).toBeVisible();
  await page.getByRole("button", { name: "Open the interactive client" }).click();
  await page.getByRole("heading", { name: openapi.info.title }).first().waitFor({ timeout: 30_000 });
  await screenshot(page, "api-reference");

  await page.goto(`${server.url}/signin`);
  await page.getByRole("heading", { name: "Sign in to the developer portal" }).waitFor();
  await expectAccessible(page, "signin");
  await screenshot(page, "signin");

  expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
  await page.context().close();
  expect(foreignRequests, "the browser never reached for a remote host (fonts, scripts, telemetry)").toEqual([]);
});
