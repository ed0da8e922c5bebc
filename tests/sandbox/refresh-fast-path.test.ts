import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson } from "../helpers/cli";
import { query } from "../helpers/db";
import { createTestApp, refreshTokens, signInAndGetTokens } from "../helpers/oidc";
import { answeredBy, startServer, type TestServer } from "../helpers/server";

/**
 * A sandbox login client's refresh grant is answered by the fast path (lib/oidc/refresh-grant.ts)
 * like a live client's: its token's app is found through the `sbx_` client id, live in the sandbox
 * whatever its review status but suspended (isAppLiveIn), and the sandbox's token watermark counts.
 * Before the sandbox branch, every sandbox refresh went the slow way through oidc-provider.
 */
const REDIRECT = "http://localhost:9/callback";

let server: TestServer;
let appClientId: string;
let sandboxClientId: string;
let tester: { handle: string; password: string };

beforeAll(async () => {
  server = await startServer({ seed: false });
  // Pending: before review, only its sandbox signs anyone in.
  ({ clientId: appClientId } = await createTestApp(server.databaseUrl, { type: "login", status: "pending", scopes: ["svc:chat.read"], redirectUris: [REDIRECT] }));
  sandboxClientId = `sbx_${appClientId}`;
  tester = await cliJson<{ handle: string; password: string }>(server.databaseUrl, ["apps", "sandbox", "users", "add", appClientId, "--handle", "Rita_Refresh"]);
}, 300_000);

afterAll(async () => {
  await server?.stop();
});

const signIn = () => signInAndGetTokens(server, { handle: tester.handle, password: tester.password, clientId: sandboxClientId, redirectUri: REDIRECT, scope: "openid profile" });

describe("a sandbox client's refresh grant", () => {
  it("is answered by the fast path, with a sandbox token of the sandbox client", async () => {
    const tokens = await signIn();
    const { answer, paths } = await answeredBy(server, () => refreshTokens(server, sandboxClientId, tokens.refresh_token));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(paths).toEqual({ refresh_fast: 1 });
    const claims = decodeJwt(answer.body.access_token as string);
    expect(claims).toMatchObject({ client_id: sandboxClientId, sandbox: true, scope: tokens.scope });
    const me = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${answer.body.access_token as string}` } });
    expect(me.status).toBe(200);
  });

  it("mints no token that the sandbox's watermark voids", async () => {
    const tokens = await signIn();
    // A watermark one second ahead (UTC, as Prisma writes it): the fast path waits past it.
    await query(server.databaseUrl, `UPDATE "Sandbox" SET "tokensRevokedAt" = timezone('UTC', now()) + interval '1 second' WHERE "clientId" = $1`, [sandboxClientId]);
    const [mark] = await query<{ at: number }>(server.databaseUrl, `SELECT floor(extract(epoch FROM "tokensRevokedAt"))::int AS at FROM "Sandbox" WHERE "clientId" = $1`, [sandboxClientId]);
    const { answer, paths } = await answeredBy(server, () => refreshTokens(server, sandboxClientId, tokens.refresh_token));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(paths).toEqual({ refresh_fast: 1 });
    expect(decodeJwt(answer.body.access_token as string).iat).toBeGreaterThan(mark!.at);
  });
});
