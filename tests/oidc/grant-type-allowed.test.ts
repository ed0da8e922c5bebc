import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, tokenRequest, type TestApp } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * RFC 6749 §5.2: a client asking the token endpoint for a grant type it may not use gets
 * `unauthorized_client` (400), whichever way it authenticates; a grant type nobody may use stays
 * `unsupported_grant_type`.
 */
let server: TestServer;
let api: TestApp;
let login: TestApp;
const REDIRECT = "http://localhost:9/callback";
const DEVICE_CODE = "urn:ietf:params:oauth:grant-type:device_code";

beforeAll(async () => {
  server = await startServer({ seed: false });
  api = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
  login = await createTestApp(server.databaseUrl, { type: "login", redirectUris: [REDIRECT] });
});

afterAll(async () => {
  await server?.stop();
});

describe("a grant type the client may not use", () => {
  it("is unauthorized_client for an API client's refresh_token, authorization_code and device_code", async () => {
    const credentials = { client_id: api.clientId, client_secret: api.clientSecret };
    const basic = { authorization: `Basic ${Buffer.from(`${api.clientId}:${api.clientSecret}`).toString("base64")}` };
    for (const [form, headers] of [
      [{ grant_type: "refresh_token", refresh_token: "not-a-token", ...credentials }, {}],
      [{ grant_type: "refresh_token", refresh_token: "not-a-token" }, basic],
      [{ grant_type: "authorization_code", code: "not-a-code", redirect_uri: REDIRECT, ...credentials }, {}],
      [{ grant_type: DEVICE_CODE, device_code: "not-a-code", ...credentials }, {}],
    ] as const) {
      const answer = await tokenRequest(server, form, headers);
      expect({ status: answer.status, error: answer.body.error }, form.grant_type).toEqual({ status: 400, error: "unauthorized_client" });
    }
  });

  it("is unauthorized_client for a login client's client_credentials, and its device_code without device sign-in", async () => {
    for (const form of [
      { grant_type: "client_credentials", client_id: login.clientId },
      { grant_type: DEVICE_CODE, device_code: "not-a-code", client_id: login.clientId },
    ]) {
      const answer = await tokenRequest(server, form);
      expect({ status: answer.status, error: answer.body.error }, form.grant_type).toEqual({ status: 400, error: "unauthorized_client" });
    }
  });

  it("leaves a grant type no client may use as unsupported_grant_type", async () => {
    const answer = await tokenRequest(server, { grant_type: "password", username: "a", password: "b", client_id: api.clientId, client_secret: api.clientSecret });
    expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 400, error: "unsupported_grant_type" });
  });
});
