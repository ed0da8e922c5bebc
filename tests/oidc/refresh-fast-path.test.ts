import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../helpers/db";
import { createTestApp, createTestUser, refreshTokens, signInAndGetTokens, tokenRequest } from "../helpers/oidc";
import { answeredBy, startServer, type TestServer } from "../helpers/server";

/**
 * A plain refresh grant (grant_type, client_id, refresh_token) is answered by
 * lib/oidc/refresh-grant.ts, in front of oidc-provider. Sending the same grant with a `scope`
 * parameter equal to the token's sends it through oidc-provider instead, whose answer is the
 * reference: the fast path must answer, and store, the same thing. Its refusals (replays, revoked
 * grants, disabled users…) are oidc-provider's own: tests/oidc/refresh-token.test.ts and
 * token-revocation.test.ts run through it. Which path answered is read from the server's counters
 * (GET /metrics): a switched-off fast path fails here.
 */
const REDIRECT = "http://localhost:9/callback";
const PASSWORD = "refresh fast path passphrase";
const NONCE = "n-0S6_WzA2Mj";

let server: TestServer;
let clientId: string;

beforeAll(async () => {
  server = await startServer({ seed: false });
  ({ clientId } = await createTestApp(server.databaseUrl, {
    type: "login",
    scopes: ["svc:chat.read", "svc:directory.read"],
    redirectUris: [REDIRECT],
  }));
  const { id } = await createTestUser(server.databaseUrl, { handle: "fast_fiona", password: PASSWORD, displayName: "Fiona Fast-Path 🚀" });
  await query(server.databaseUrl, `UPDATE "User" SET "avatarUrl" = '/avatars/fiona.png' WHERE id = $1`, [id]);
});

afterAll(async () => {
  await server?.stop();
});

const signIn = (scope: string, extraParams: Record<string, string> = {}) =>
  signInAndGetTokens(server, { handle: "fast_fiona", password: PASSWORD, clientId, redirectUri: REDIRECT, scope, extraParams });

function decode(jwt: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [header, claims] = jwt.split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part!, "base64url").toString()) as Record<string, unknown>);
  return { header: header!, claims: claims! };
}

/** A token's claims with the per-token values (id, times) replaced by what must hold of them. */
function stable(claims: Record<string, unknown>) {
  const { jti, iat, exp, ...rest } = claims;
  return { ...rest, jti: typeof jti, lifetime: (exp as number) - (iat as number) };
}

/** The stored refresh-token rows of a grant, oldest first. */
async function storedChain(grantId: string) {
  return query<{ payload: Record<string, unknown>; consumed: boolean; expiresAt: Date }>(
    server.databaseUrl,
    `SELECT payload, "consumedAt" IS NOT NULL AS consumed, "expiresAt" FROM "OidcModel"
     WHERE kind = 'RefreshToken' AND "grantId" = $1 ORDER BY (payload->>'rotations')::int`,
    [grantId],
  );
}

/** The grant of a refresh token, from its row (stored under the SHA-256 of the value, lib/oidc/adapter.ts). */
async function grantOf(refreshToken: string): Promise<string> {
  const key = `sha256:${createHash("sha256").update(refreshToken).digest("base64url")}`;
  const rows = await query<{ grantId: string }>(server.databaseUrl, `SELECT "grantId" FROM "OidcModel" WHERE kind = 'RefreshToken' AND id = $1`, [key]);
  return rows[0]!.grantId;
}

describe("the refresh fast path", () => {
  for (const scope of ["openid profile", "openid"]) {
    it(`answers and stores what oidc-provider does (scope "${scope}", with a nonce)`, async () => {
      const fastStart = await signIn(scope, { nonce: NONCE });
      const fastGrant = await grantOf(fastStart.refresh_token);
      const slowStart = await signIn(scope, { nonce: NONCE });
      const slowGrant = await grantOf(slowStart.refresh_token);

      const { answer: fast, paths: fastPaths } = await answeredBy(server, () => refreshTokens(server, clientId, fastStart.refresh_token));
      const { answer: slow, paths: slowPaths } = await answeredBy(server, () =>
        tokenRequest(server, {
          grant_type: "refresh_token",
          client_id: clientId,
          refresh_token: slowStart.refresh_token,
          scope: slowStart.scope,
        }),
      );
      expect(fastPaths).toEqual({ refresh_fast: 1 });
      expect(slowPaths).toEqual({ oidc_provider: 1 });
      expect(fast.status, JSON.stringify(fast.body)).toBe(200);
      expect(slow.status, JSON.stringify(slow.body)).toBe(200);

      // The same response: fields, values other than the tokens, headers.
      expect(Object.keys(fast.body)).toEqual(Object.keys(slow.body));
      const { access_token: fa, id_token: fi, refresh_token: fr, ...fastRest } = fast.body as Record<string, string>;
      const { access_token: sa, id_token: si, refresh_token: sr, ...slowRest } = slow.body as Record<string, string>;
      expect(fastRest).toEqual(slowRest);
      // X-Request-Id is each answer's own: both carry one.
      const headers = (h: Headers) =>
        [...h].map(([name, value]): [string, string] => [name, name === "x-request-id" ? (value ? "(present)" : "") : value]).filter(([name]) => name !== "date" && name !== "content-length");
      expect(headers(fast.headers)).toEqual(headers(slow.headers));
      expect(fast.headers.get("x-request-id")).toBeTruthy();

      // The same access token and ID token (header and claims, but for ids and times).
      expect(decode(fa!).header).toEqual(decode(sa!).header);
      expect(stable(decode(fa!).claims)).toEqual(stable(decode(sa!).claims));
      expect(Object.keys(decode(fa!).claims)).toEqual(Object.keys(decode(sa!).claims));
      expect(decode(fi!).header).toEqual(decode(si!).header);
      expect(stable(decode(fi!).claims)).toEqual(stable(decode(si!).claims));
      expect(Object.keys(decode(fi!).claims)).toEqual(Object.keys(decode(si!).claims));
      expect(decode(fi!).claims.nonce).toBe(NONCE);
      if (scope.includes("profile")) {
        expect(decode(fi!).claims).toMatchObject({ name: "Fiona Fast-Path 🚀", preferred_username: "fast_fiona" });
        expect(String(decode(fi!).claims.picture)).toMatch(/\/avatars\/fiona\.png$/);
      } else {
        expect(decode(fi!).claims).not.toHaveProperty("name");
      }
      expect(fr).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(sr).toMatch(/^[A-Za-z0-9_-]{43}$/);

      // The same rows: the presented token consumed, its successor with the same fields.
      const [fastRows, slowRows] = [await storedChain(fastGrant), await storedChain(slowGrant)];
      expect(fastRows.map((r) => r.consumed)).toEqual([true, false]);
      expect(slowRows.map((r) => r.consumed)).toEqual([true, false]);
      const { iat: _fi, exp: fastExp, grantId: _fg, sessionUid: _fs, authTime: _fa, iiat: _fii, ...fastNext } = fastRows[1]!.payload;
      const { iat: _si, exp: slowExp, grantId: _sg, sessionUid: _ss, authTime: _sa, iiat: _sii, ...slowNext } = slowRows[1]!.payload;
      expect(fastNext).toEqual(slowNext);
      expect(fastNext).toMatchObject({ rotations: 1, gty: "authorization_code refresh_token", nonce: NONCE });
      // A sign-in lasts REFRESH_TOKEN_TTL: the successor keeps the first token's expiry and its own issue time.
      expect(fastExp).toBe(fastRows[0]!.payload.exp);
      expect(slowExp).toBe(slowRows[0]!.payload.exp);
      expect(fastRows[1]!.payload.iiat).toBe(fastRows[0]!.payload.iiat);
      expect(fastRows[1]!.payload.sessionUid).toBe(fastRows[0]!.payload.sessionUid);
      expect(Math.abs(fastRows[1]!.expiresAt.getTime() - fastRows[0]!.expiresAt.getTime())).toBeLessThan(5_000);

      // Each one's successor works through the other: the fast path's through oidc-provider, and back.
      const viaProvider = await tokenRequest(server, { grant_type: "refresh_token", client_id: clientId, refresh_token: fr!, scope: slowStart.scope });
      expect(viaProvider.status, JSON.stringify(viaProvider.body)).toBe(200);
      const { answer: viaFastPath, paths: viaFastPaths } = await answeredBy(server, () => refreshTokens(server, clientId, sr!));
      expect(viaFastPath.status, JSON.stringify(viaFastPath.body)).toBe(200);
      expect(viaFastPaths).toEqual({ refresh_fast: 1 });
      expect((await storedChain(slowGrant)).at(-1)!.payload.rotations).toBe(2);

      // And the access token works on the API.
      const me = await fetch(`${server.apiUrl}/me`, { headers: { authorization: `Bearer ${fa}` } });
      expect(me.status).toBe(200);
    });
  }

  it("a replay of a token it rotated is oidc-provider's reuse detection: the grant and its newest token die", async () => {
    const start = await signIn("openid");
    const { answer: first, paths } = await answeredBy(server, () => refreshTokens(server, clientId, start.refresh_token));
    expect(first.status).toBe(200);
    expect(paths).toEqual({ refresh_fast: 1 });
    // The replay is refused by oidc-provider (the fast path answers only the happy shape).
    const { answer: replay, paths: replayPaths } = await answeredBy(server, () => refreshTokens(server, clientId, start.refresh_token));
    expect(replayPaths).toEqual({ oidc_provider: 1 });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    const next = await refreshTokens(server, clientId, first.body.refresh_token as string);
    expect(next.body.error).toBe("invalid_grant");
  });

  it("many concurrent refreshes of one token: exactly one is answered, the rest are replays", async () => {
    // Rounds of 40 at once: reads share a batch, signatures finish apart, rotations land in
    // different batches; only the conditional consume keeps the winner single.
    for (let round = 0; round < 3; round++) {
      const start = await signIn("openid");
      const { answer: answers, paths } = await answeredBy(server, () =>
        Promise.all(Array.from({ length: 40 }, () => refreshTokens(server, clientId, start.refresh_token))),
      );
      const ok = answers.filter((a) => a.status === 200);
      expect(ok).toHaveLength(1);
      // The winner is the fast path's; every loser went on to oidc-provider's reuse detection.
      expect(paths).toEqual({ refresh_fast: 1, oidc_provider: 39 });
      for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.body.error).toBe("invalid_grant");
    }
  });
});
