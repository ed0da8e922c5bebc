import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureSdkTarball } from "../../lib/server/sdk-package";
import { createTestApp, createTestUser, signInAndGetTokens } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * "the SDK installs anywhere": a developer outside this repository runs
 * `npm install {APP_URL}/sdk/latest.tgz` in an empty folder, and a strict TypeScript file, an ES
 * module and a CommonJS script work against the platform (client credentials, a paginated read, a
 * chat post). The tarball is the one the running server serves (npm pack of sdk/, lib/server/sdk-package.ts);
 * its dependencies come from the npm registry.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const run = promisify(execFile);
const REDIRECT = "http://localhost:9/install/callback";
const PASSWORD = "sdk-install-password";

let server: TestServer;
let folder: string;
let api: { clientId: string; clientSecret: string };
let userToken: string;

beforeAll(async () => {
  // Packed here (a minute on a busy machine when sdk/ changed), under the lock the server's packer shares:
  // the server then finds it current.
  await ensureSdkTarball(ROOT);
  server = await startServer({ seed: true });
  api = (await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read", "svc:directory.read"] })) as typeof api;
  const login = await createTestApp(server.databaseUrl, { type: "login", scopes: ["svc:chat.read", "svc:chat.write"], redirectUris: [REDIRECT], firstParty: true });
  await createTestUser(server.databaseUrl, { handle: "installer", password: PASSWORD });
  userToken = (await signInAndGetTokens(server, { handle: "installer", password: PASSWORD, clientId: login.clientId, redirectUri: REDIRECT, scope: "openid svc:chat.read svc:chat.write" })).access_token;
  // Outside the repository: no workspace, no node_modules above it, nothing but what npm installs.
  folder = await mkdtemp(path.join(os.tmpdir(), "sdk-install-"));
  expect(path.relative(ROOT, folder).startsWith("..")).toBe(true);
}, 600_000);

afterAll(async () => {
  await server?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const ESM = `import { createRequire } from "node:module";
import { clientCredentials, createClient, PlatformError } from "@social-dev-platform/sdk";

const [apiUrl, issuer, clientId, clientSecret, userToken, text] = process.argv.slice(2);
const app = createClient({ baseUrl: apiUrl, tokenProvider: clientCredentials({ issuer, clientId, clientSecret }) });
const handles = [];
for await (const user of app.users.list({ limit: 2 })) {
  handles.push(user.handle);
  if (handles.length === 5) break;
}
const page = await app.GET("/global-chat/messages", { params: { query: { limit: 3 } } });
const posted = await createClient({ baseUrl: apiUrl, token: userToken }).chat.post(text);
const missing = await app.users.get("no-such-person-here").catch((error) => error);
console.log(JSON.stringify({
  handles,
  messages: page.data.messages.length,
  rateLimit: page.rateLimit,
  requestId: page.requestId,
  posted: { id: posted.id, text: posted.text },
  missing: { isPlatformError: missing instanceof PlatformError, code: missing.code, status: missing.status },
  // The same package required too (the dual package hazard): another class, the same errors.
  dual: { isPlatformError: missing instanceof createRequire(import.meta.url)("@social-dev-platform/sdk").PlatformError },
}));
`;

const CJS = `const { clientCredentials, createClient, PlatformError } = require("@social-dev-platform/sdk");

async function main() {
  const [apiUrl, issuer, clientId, clientSecret, userToken, text] = process.argv.slice(2);
  const app = createClient({ baseUrl: apiUrl, tokenProvider: clientCredentials({ issuer, clientId, clientSecret }) });
  const handles = [];
  for await (const user of app.users.list({ limit: 2 })) {
    handles.push(user.handle);
    if (handles.length === 5) break;
  }
  const page = await app.GET("/global-chat/messages", { params: { query: { limit: 3 } } });
  const posted = await createClient({ baseUrl: apiUrl, token: userToken }).chat.post(text);
  const missing = await app.users.get("no-such-person-here").catch((error) => error);
  console.log(JSON.stringify({
    handles,
    messages: page.data.messages.length,
    rateLimit: page.rateLimit,
    requestId: page.requestId,
    posted: { id: posted.id, text: posted.text },
    missing: { isPlatformError: missing instanceof PlatformError, code: missing.code, status: missing.status },
    dual: { isPlatformError: missing instanceof (await import("@social-dev-platform/sdk")).PlatformError },
  }));
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

/** Strict TypeScript, as a developer's own project would compile it (both module systems). */
const TYPED_ESM = `import { createClient, PlatformError, type PlatformErrorCode } from "@social-dev-platform/sdk";

export async function typed(token: string): Promise<string> {
  const client = createClient({ baseUrl: "http://localhost:3000", token, maxRetries: 1, timeoutMs: 5_000 });
  const page = await client.GET("/global-chat/messages", { params: { query: { limit: 5 } }, signal: AbortSignal.timeout(10_000) });
  const first: string | undefined = page.data.messages[0]?.text;
  const remaining: number | undefined = page.rateLimit?.remaining;
  const posted = await client.chat.post("hi", { idempotencyKey: "my-key-1" });
  try {
    await client.users.poke("bob");
  } catch (error) {
    if (error instanceof PlatformError && error.code === "poke_cooldown") return String(error.nextAllowedAt);
    const code: PlatformErrorCode | undefined = error instanceof PlatformError ? error.code : undefined;
    // @ts-expect-error -- not a code the platform has: a misspelling is a type error
    if (error instanceof PlatformError && error.code === "rate_limitted") return "never";
    return String(code);
  }
  // @ts-expect-error -- POST /global-chat/messages takes \`text\`
  await client.POST("/global-chat/messages", { body: { txt: "hello" } });
  return \`\${first} \${remaining} \${posted.id} \${page.requestId}\`;
}
`;
const TYPED_CJS = `import { createClient, PlatformError } from "@social-dev-platform/sdk";

export async function typed(token: string): Promise<string> {
  const profile = await createClient({ baseUrl: "http://localhost:3000", token }).users.get("alice");
  const code = await createClient({ baseUrl: "http://localhost:3000" }).me.get().catch((e: unknown) => (e instanceof PlatformError ? e.code : null));
  // @ts-expect-error -- a profile has no \`nickname\`
  void profile.user.nickname;
  return \`\${profile.user.displayName} \${code}\`;
}
`;

async function npm(args: string[]) {
  return run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: folder,
    env: { ...process.env, npm_config_update_notifier: "false" },
    maxBuffer: 16 * 1024 * 1024,
  });
}

describe("installing the SDK from the running platform", () => {
  it("serves the tarball: latest.tgz briefly cached, the versioned name immutable", async () => {
    const latest = await fetch(`${server.url}/sdk/latest.tgz`);
    expect(latest.status).toBe(200);
    expect(latest.headers.get("cache-control")).toBe("public, max-age=300");
    const version = latest.headers.get("x-sdk-version")!;
    const pkg = JSON.parse(await readFile(path.join(ROOT, "sdk", "package.json"), "utf8")) as { version: string };
    expect(version).toBe(pkg.version);
    const bytes = Buffer.from(await latest.arrayBuffer());
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b])); // gzip

    const versioned = await fetch(`${server.url}/sdk/social-dev-platform-sdk-${version}.tgz`);
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(Buffer.from(await versioned.arrayBuffer()).equals(bytes)).toBe(true);
    expect(versioned.headers.get("etag")).toBe(latest.headers.get("etag"));

    const other = await fetch(`${server.url}/sdk/social-dev-platform-sdk-0.0.1.tgz`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { message: string } }).error.message).toContain(`social-dev-platform-sdk-${version}.tgz`);
  });

  it("npm install <APP_URL>/sdk/latest.tgz into an empty folder; strict TypeScript, ESM and CommonJS work against the server", async () => {
    await writeFile(path.join(folder, "package.json"), JSON.stringify({ name: "outside-app", version: "1.0.0", private: true }));
    await npm(["install", `${server.url}/sdk/latest.tgz`]);
    const installed = JSON.parse(await readFile(path.join(folder, "node_modules", "@social-dev-platform", "sdk", "package.json"), "utf8"));
    expect(installed.name).toBe("@social-dev-platform/sdk");
    const manifest = JSON.parse(await readFile(path.join(folder, "package.json"), "utf8"));
    expect(manifest.dependencies["@social-dev-platform/sdk"]).toBe(`${server.url}/sdk/latest.tgz`);

    // Type-check with the repository's tsc (the folder has no TypeScript), strict, Node's module resolution.
    await writeFile(path.join(folder, "typed.mts"), TYPED_ESM);
    await writeFile(path.join(folder, "typed.cts"), TYPED_CJS);
    const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const flags = ["--noEmit", "--strict", "--noUncheckedIndexedAccess", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--lib", "es2022,dom,dom.iterable"];
    const checked = await run(process.execPath, [tsc, ...flags, "typed.mts", "typed.cts"], { cwd: folder }).catch((e: { stdout: string }) => e);
    expect((checked as { stdout: string }).stdout).toBe("");

    const args = [server.apiUrl, server.issuer, api.clientId, api.clientSecret, userToken];
    await writeFile(path.join(folder, "app.mjs"), ESM);
    await writeFile(path.join(folder, "app.cjs"), CJS);
    const esm = JSON.parse((await run(process.execPath, ["app.mjs", ...args, "posted from ESM"], { cwd: folder })).stdout);
    // The chat takes one post per 2 seconds per person: the SDK waits Retry-After and posts the second.
    const cjs = JSON.parse((await run(process.execPath, ["app.cjs", ...args, "posted from CommonJS"], { cwd: folder })).stdout);
    for (const [result, text] of [[esm, "posted from ESM"], [cjs, "posted from CommonJS"]] as const) {
      expect(result.handles).toHaveLength(5); // three pages of two
      expect(new Set(result.handles).size).toBe(5);
      expect(result.messages).toBe(3);
      expect(result.rateLimit).toMatchObject({ limit: expect.any(Number), remaining: expect.any(Number), reset: expect.any(Number), policy: "app" });
      expect(result.requestId).toBeTruthy();
      expect(result.posted.text).toBe(text);
      expect(result.missing).toEqual({ isPlatformError: true, code: "not_found", status: 404 });
      expect(result.dual).toEqual({ isPlatformError: true });
    }
    const { data } = (await (await fetch(`${server.apiUrl}/global-chat/messages?limit=5`, { headers: { authorization: `Bearer ${userToken}` } })).json()) as {
      data: { messages: { id: string; text: string }[] };
    };
    expect(data.messages.filter((m) => m.text.startsWith("posted from ")).map((m) => m.id).sort()).toEqual([esm.posted.id, cjs.posted.id].sort());
  }, 300_000);
});
