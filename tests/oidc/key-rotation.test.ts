import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import { pointAppAt, startServer, type TestServer } from "../helpers/server";
import { clientCredentialsToken, createTestApp } from "../helpers/oidc";

/**
 * Signing keys live in the database: generated on first start, kept across restarts, rotatable;
 * after a rotation the new keys sign and the retired ones stay published (and verifiable) until the
 * tokens they signed have expired.
 */
let server: TestServer;
let keys: typeof import("../../lib/oidc/keys");
let verify: typeof import("../../lib/oidc/verify");
let closeDb: () => Promise<void>;

beforeAll(async () => {
  server = await startServer({ seed: false });
  closeDb = await pointAppAt(server.databaseUrl, { APP_URL: server.url, LOG_LEVEL: "silent" });
  keys = await import("../../lib/oidc/keys");
  verify = await import("../../lib/oidc/verify");
});

afterAll(async () => {
  await closeDb?.();
  await server?.stop();
});

const published = async (s: TestServer) =>
  ((await (await fetch(`${s.issuer}/protocol/openid-connect/certs`)).json()) as { keys: { kid: string; alg: string }[] }).keys;

it("keys survive a restart, and a rotation switches signing while old tokens keep verifying", async () => {
  const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
  const before = await clientCredentialsToken(server, app.clientId, app.clientSecret!);
  const oldKid = decodeProtectedHeader(before.access_token).kid!;
  const firstSet = (await published(server)).map((k) => k.kid).sort();

  // Same database and address (so the issuer is the same), new process: the same keys.
  await server.stop();
  server = await startServer({ databaseUrl: server.databaseUrl, port: server.port });
  expect((await published(server)).map((k) => k.kid).sort()).toEqual(firstSet);

  // Rotate (what an operator command would call), then restart so this process's provider reloads
  // at once (running processes pick the change up within a minute).
  await keys.rotateSigningKeys();
  await server.stop();
  server = await startServer({ databaseUrl: server.databaseUrl, port: server.port });
  const afterSet = await published(server);
  expect(afterSet).toHaveLength(4);
  expect(afterSet.map((k) => k.kid)).toEqual(expect.arrayContaining(firstSet));

  const after = await clientCredentialsToken(server, app.clientId, app.clientSecret!);
  const newKid = decodeProtectedHeader(after.access_token).kid!;
  expect(newKid).not.toBe(oldKid);
  expect(afterSet.map((k) => k.kid)).toContain(newKid);

  await expect(verify.verifyAccessToken(before.access_token)).resolves.toMatchObject({ clientId: app.clientId });
  await expect(verify.verifyAccessToken(after.access_token)).resolves.toMatchObject({ clientId: app.clientId });
});
