import { expect, test, type Locator } from "@playwright/test";
import { generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { createTestApp } from "../tests/helpers/oidc";
import { checkLayout, clientCredentials, expectAccessible, expectOAuthError, newContext, query, screenshot, server, signIn } from "./support";

/**
 * Keys instead of a client secret (private_key_jwt, RFC 7523) on the app page: alice pastes a
 * private key by mistake and is told so under the field; pastes the public JWK Set and the Keys card
 * lists the key (type, algorithm, kid, nothing more) while the Client secrets card says the app holds
 * none (the old secret fails, a signed assertion gets a token); then goes back to a secret, which
 * the page reveals once. A login client's card says it is public (PKCE) until it has keys. The
 * layout checks (1280 and 390 px, axe) run on the page with keys and after it.
 */

/** Read on use: the server's address is known only once the global setup has run (e2e/server.ts). */
const tokenEndpoint = () => `${server.issuer}/protocol/openid-connect/token`;

function newKeyPair(kid: string) {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    privateKey,
    publicJwk: { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" },
    privateJwk: { ...privateKey.export({ format: "jwk" }), kid, alg: "ES256" },
  };
}

/** A client_credentials request authenticated with an assertion signed by `key` (RFC 7523 §3). */
async function withAssertion(clientId: string, key: KeyObject, kid: string): Promise<Response> {
  const assertion = await new SignJWT({ jti: randomBytes(16).toString("base64url") })
    .setProtectedHeader({ alg: "ES256", kid })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(tokenEndpoint())
    .setIssuedAt()
    .setExpirationTime("60s")
    .sign(key);
  return fetch(tokenEndpoint(), {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: assertion,
    }),
  });
}

async function storedKeys(clientId: string): Promise<{ jwks: unknown; secrets: number }> {
  const [row] = await query<{ jwks: unknown; secrets: string }>(
    server.databaseUrl,
    `SELECT a.jwks, (SELECT count(*) FROM "ClientSecret" s WHERE s."applicationId" = a.id) AS secrets FROM "Application" a WHERE a."clientId" = $1`,
    [clientId],
  );
  return { jwks: row!.jwks, secrets: Number(row!.secrets) };
}

async function pasteKeys(card: Locator, value: unknown): Promise<void> {
  await card.getByText("Paste public keys (JWK Set)", { exact: true }).click();
  await card.getByLabel("Public keys", { exact: true }).fill(JSON.stringify(value));
  await card.getByRole("button", { name: "Use these keys" }).click();
}

test("a developer moves an approved API client to private_key_jwt keys and back to a secret", async ({ browser }) => {
  const foreign: string[] = [];
  const app = await createTestApp(server.databaseUrl, { type: "api", ownerHandle: "alice", scopes: ["svc:chat.read"], name: "Ledger sync" });
  const kid = `ledger-sync-2026-11-${randomBytes(3).toString("hex")}`;
  const key = newKeyPair(kid);

  const page = await (await newContext(browser, foreign)).newPage();
  await signIn(page, "alice", `/apps/${app.clientId}`);
  const keysCard = page.locator("#client-keys");
  const secretsCard = page.locator("#client-secrets");
  await expect(keysCard.getByRole("heading", { name: "Keys (private_key_jwt)" })).toBeVisible();
  await expect(keysCard.getByTestId("keys-empty")).toContainText("signs a short-lived JWT with its own private key");
  await expect(secretsCard.getByTestId("secret-row")).toHaveCount(1);

  // A private key: refused in the service's words, under the field; nothing changes.
  await pasteKeys(keysCard, { keys: [key.privateJwk] });
  const field = keysCard.getByLabel("Public keys", { exact: true });
  await expect(keysCard.getByRole("alert")).toContainText("includes a private key (key 1)");
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await screenshot(page, "app-keys-private-key-refused");
  expect(await storedKeys(app.clientId)).toEqual({ jwks: null, secrets: 1 });

  // The public key set: listed with its kid, and the app's secret is gone.
  await field.fill(JSON.stringify({ keys: [key.publicJwk] }));
  await keysCard.getByRole("button", { name: "Use these keys" }).click();
  await expect(page.getByText("1 key saved.", { exact: false })).toBeVisible();
  const row = keysCard.getByTestId("key-row");
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("key-kid")).toHaveText(kid);
  await expect(row).toContainText("EC");
  await expect(row).toContainText("ES256");
  await expect(keysCard.getByTestId("keys-source")).toHaveText("Pasted on this page.");
  await expect(keysCard.getByRole("alert")).toHaveCount(0);
  await expect(secretsCard.getByTestId("secrets-keys-instead")).toContainText("holds no client secret");
  await expect(secretsCard.getByTestId("secret-row")).toHaveCount(0);
  await expect(secretsCard.getByRole("button", { name: /Add a second secret|Roll secret/ })).toHaveCount(0);
  // The page names the key, never its material.
  expect(await page.content()).not.toContain(key.publicJwk.x as string);
  expect((await storedKeys(app.clientId)).secrets).toBe(0);

  // The old secret no longer works; an assertion signed with the key does.
  await expectOAuthError(clientCredentials(app.clientId, app.clientSecret!), "invalid_client");
  const signed = await withAssertion(app.clientId, key.privateKey, kid);
  expect(signed.status, await signed.clone().text()).toBe(200);

  // The same after a reload: the server renders what the action saved; replacing starts from a paste.
  await page.reload();
  await expect(keysCard.getByTestId("key-kid")).toHaveText(kid);
  await expect(keysCard.getByRole("radio", { name: /^Paste public keys/ })).toBeChecked();
  await expectAccessible(page, "app page with keys");
  expect(await checkLayout(page, "app-keys-set", (p) => p.goto(`${server.url}/apps/${app.clientId}`))).toEqual([]);

  // Back to a secret: the dialog says what happens, then the page reveals the new secret once.
  await keysCard.getByRole("button", { name: "Use a client secret instead" }).click();
  const dialog = page.getByRole("dialog", { name: "Use a client secret instead?" });
  await expect(dialog).toContainText("Every token request must then use a new client secret, shown once on this page");
  await expect(dialog).toContainText("Access tokens already issued keep working until they expire");
  await expectAccessible(page, "use a client secret dialog");
  await screenshot(page, "app-keys-clear-dialog");
  await dialog.getByRole("button", { name: "Use a client secret" }).click();
  await expect(dialog).toBeHidden();
  const revealed = page.getByTestId("client-secret");
  await expect(revealed).toHaveValue(/.{32,}/);
  await screenshot(page, "app-keys-secret-again");
  await expect(secretsCard.getByTestId("secret-row")).toHaveCount(1);
  await expect(secretsCard.getByTestId("secrets-keys-instead")).toHaveCount(0);
  await expect(keysCard.getByTestId("keys-empty")).toBeVisible();
  await expect(keysCard.getByRole("button", { name: "Use a client secret instead" })).toHaveCount(0);
  expect(await storedKeys(app.clientId)).toEqual({ jwks: null, secrets: 1 });
  const token = await clientCredentials(app.clientId, await revealed.inputValue());
  expect(token.status).toBe(200);
  await expectOAuthError(withAssertion(app.clientId, key.privateKey, kid), "invalid_client");

  expect(await checkLayout(page, "app-keys-cleared", (p) => p.goto(`${server.url}/apps/${app.clientId}`))).toEqual([]);
  expect(foreign).toEqual([]);
});

test("a login client is public (PKCE) until it has keys, whatever its status", async ({ browser }) => {
  const foreign: string[] = [];
  const app = await createTestApp(server.databaseUrl, { type: "login", ownerHandle: "alice", scopes: [], name: "Ledger web", status: "pending" });
  const kid = `ledger-web-${randomBytes(3).toString("hex")}`;
  const key = newKeyPair(kid);

  const page = await (await newContext(browser, foreign)).newPage();
  await signIn(page, "alice", `/apps/${app.clientId}`);
  const auth = page.getByTestId("login-client-auth");
  const keysCard = page.locator("#client-keys");
  await expect(auth).toContainText("A public client");
  await expect(auth).toContainText("PKCE");

  // A key set URL: checked in the browser first, then fetched by the service, which says why not.
  const url = keysCard.getByLabel("Key set URL", { exact: true });
  await url.fill("ftp://keys.example.com/jwks.json");
  await keysCard.getByRole("button", { name: "Use these keys" }).click();
  await expect(keysCard.getByRole("alert")).toHaveText("must be an https URL");
  const unreachable = "https://127.0.0.1:9/.well-known/jwks.json";
  await url.fill(unreachable);
  await keysCard.getByRole("button", { name: "Use these keys" }).click();
  await expect(keysCard.getByRole("alert")).toContainText(unreachable);
  await expect(url).toHaveAttribute("aria-invalid", "true");

  // One public JWK (not a set) is a set of one.
  await pasteKeys(keysCard, key.publicJwk);
  await expect(keysCard.getByTestId("key-kid")).toHaveText(kid);
  await expect(auth).toContainText("signs each token request with its own private key");

  await keysCard.getByRole("button", { name: "Stop using keys" }).click();
  const dialog = page.getByRole("dialog", { name: "Stop using keys?" });
  await expect(dialog).toContainText("public client again");
  await dialog.getByRole("button", { name: "Stop using keys" }).click();
  await expect(auth).toContainText("A public client");
  await expect(keysCard.getByTestId("keys-empty")).toBeVisible();
  expect((await storedKeys(app.clientId)).jwks).toBeNull();
  expect(foreign).toEqual([]);
});
