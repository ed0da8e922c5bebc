import { spawn, spawnSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dpopQuickstartSnippets, KEY_PAIR_COMMAND, privateKeyJwtQuickstartSnippets, quickstartSnippets, type QuickstartApp, type QuickstartLanguage } from "../../lib/quickstarts";
import { runCli } from "../helpers/cli";
import { query } from "../helpers/db";
import { completeSignIn, confirmLogout, CookieJar, createTestApp, createTestUser } from "../helpers/oidc";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Every quickstart snippet (lib/quickstarts.ts: the app page's tabs and the SDK docs page show
 * exactly these) runs against a real server: curl snippets in bash, TypeScript ones with tsx (the SDK
 * from the workspace), Python ones with a python3 that has requests and Authlib (skipped only when
 * none has). Login-client snippets print the authorization URL; the test signs in through the
 * hosted forms over HTTP and types the redirect URL back in, as a person would.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const WORK = path.join(ROOT, ".test-data", `quickstarts-${process.pid}`);
const PASSWORD = "quickstart-password";
const REDIRECT = "http://localhost:9/qs/callback";
const AFTER_LOGOUT = "http://localhost:9/qs/bye";

const PYTHON = ["python3", "/usr/bin/python3"].find(
  (bin) => spawnSync(bin, ["-c", "import requests, authlib"], { stdio: "ignore" }).status === 0,
);

let server: TestServer;
let chatApp: QuickstartApp & { clientSecret: string };
let usersApp: QuickstartApp & { clientSecret: string };
let loginApp: QuickstartApp;

beforeAll(async () => {
  server = await startServer({ seed: true });
  await mkdir(WORK, { recursive: true });
  const api = async (scopes: string[]) => {
    const { clientId, clientSecret } = await createTestApp(server.databaseUrl, { type: "api", scopes });
    return { type: "api" as const, clientId, clientSecret: clientSecret!, scopes, redirectUris: [], postLogoutRedirectUris: [] };
  };
  chatApp = await api(["svc:chat.read"]);
  usersApp = await api(["svc:directory.read"]);
  const login = { scopes: ["svc:stats.read"], redirectUris: [REDIRECT], postLogoutRedirectUris: [AFTER_LOGOUT] };
  loginApp = { type: "login", ...(await createTestApp(server.databaseUrl, { type: "login", ...login })), ...login };
  await createTestUser(server.databaseUrl, { handle: "quickie", password: PASSWORD });
});

afterAll(async () => {
  await server?.stop();
  await rm(WORK, { recursive: true, force: true });
});

function snippet(app: QuickstartApp, language: QuickstartLanguage): string {
  return quickstartSnippets(app, { issuer: server.issuer, apiUrl: server.apiUrl }).find((s) => s.language === language)!.code;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a snippet; `answer` is called with each stdout line and may return text to type on stdin
 * (then stdin is closed).
 */
async function run(language: QuickstartLanguage, code: string, options: { env?: Record<string, string>; stdin?: string; answer?: (line: string) => Promise<string | undefined> } = {}): Promise<Run> {
  const file = path.join(WORK, `snippet-${Math.random().toString(36).slice(2)}.${language === "curl" ? "sh" : language === "typescript" ? "mts" : "py"}`);
  await writeFile(file, code);
  const [command, args] =
    language === "curl" ? ["bash", [file]] : language === "typescript" ? [process.execPath, ["--conditions=source", "--import", "tsx", file]] : [PYTHON!, [file]];
  const child = spawn(command, args as string[], { cwd: WORK, env: { ...process.env, ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let pending = "";
  const answers: Promise<void>[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk;
    pending += chunk;
    let i;
    while ((i = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      if (options.answer) {
        answers.push(
          options.answer(line).then((text) => {
            if (text !== undefined) child.stdin.end(`${text}\n`);
          }),
        );
      }
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  if (options.stdin !== undefined) child.stdin.end(options.stdin);
  const status = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  await Promise.all(answers);
  return { status, stdout, stderr };
}

/** Signs in as quickie where the snippet says "Open <url>"; answers with the redirect URL. */
function signInWhenAsked(jar: CookieJar, tamper?: (callback: URL) => void) {
  return async (line: string) => {
    const open = /^Open (\S+)$/.exec(line);
    if (!open) return undefined;
    const flow = await completeSignIn(server, open[1]!, { handle: "quickie", password: PASSWORD, redirectUri: REDIRECT, jar });
    tamper?.(flow.callback);
    return flow.callback.href;
  };
}

const languages: QuickstartLanguage[] = ["curl", "typescript", "python"];

describe.each(languages)("%s", (language) => {
  const skip = language === "python" && !PYTHON;

  it.skipIf(skip)("API client reading the chat: prints the five newest messages", async () => {
    const result = await run(language, snippet(chatApp, language), { env: { CLIENT_SECRET: chatApp.clientSecret }, stdin: `${chatApp.clientSecret}\n` });
    expect(result.status, result.stderr).toBe(0);
    const newest = (await (await fetch(`${server.apiUrl}/global-chat/messages?limit=5`, {
      headers: { authorization: `Bearer ${await appToken(chatApp)}` },
    })).json()) as { data: { messages: { id: string; text: string; author: { handle: string } }[] } };
    if (language === "curl") {
      expect(JSON.parse(result.stdout).data.messages.map((m: { id: string }) => m.id)).toEqual(newest.data.messages.map((m) => m.id));
    } else {
      expect(result.stdout.trimEnd()).toBe(newest.data.messages.map((m) => `${m.author.handle}: ${m.text}`).join("\n"));
    }
    expect(result.stdout + result.stderr).not.toContain(chatApp.clientSecret);
  });

  it.skipIf(skip)("API client with directory access: lists users", async () => {
    const result = await run(language, snippet(usersApp, language), { env: { CLIENT_SECRET: usersApp.clientSecret }, stdin: `${usersApp.clientSecret}\n` });
    expect(result.status, result.stderr).toBe(0);
    const first = (await (await fetch(`${server.apiUrl}/users?limit=5`, { headers: { authorization: `Bearer ${await appToken(usersApp)}` } })).json()) as {
      data: { users: { handle: string; display_name: string }[] };
    };
    if (language === "curl") expect(JSON.parse(result.stdout).data.users).toEqual(first.data.users);
    else expect(result.stdout.trimEnd()).toBe(first.data.users.map((u) => `${u.handle} (${u.display_name})`).join("\n"));
  });

  it.skipIf(skip)("login client: PKCE sign-in, code exchange, GET /me (and refresh and logout where shown)", async () => {
    const jar = new CookieJar();
    const result = await run(language, snippet(loginApp, language), { answer: signInWhenAsked(jar) });
    expect(result.status, result.stderr).toBe(0);
    if (language === "curl") {
      expect(JSON.parse(result.stdout.slice(result.stdout.indexOf("{"))).user.username).toBe("quickie");
      return;
    }
    expect(result.stdout).toContain("Signed in as quickie");
    const logout = /^Sign out: (\S+)$/m.exec(result.stdout)![1]!;
    const landed = await confirmLogout(server, jar, logout);
    expect(landed.headers.get("location")).toBe(AFTER_LOGOUT);
  });

  it.skipIf(skip)("login client: a redirect carrying another state is refused", async () => {
    const result = await run(language, snippet(loginApp, language), {
      answer: signInWhenAsked(new CookieJar(), (callback) => callback.searchParams.set("state", "someone-elses-state")),
    });
    expect(result.status).not.toBe(0);
    expect(result.stdout).not.toMatch(/Signed in as|"username"/);
  });
});

describe("DPoP (/docs/authentication)", () => {
  it("an app that requires DPoP gets a bound token and reads the chat with a proof per call; with server nonces too", async () => {
    const nonced = await startServer({ seed: false, env: { DPOP_NONCE: "1" } });
    try {
      for (const on of [server, nonced]) {
        const app = await createTestApp(on.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
        await query(on.databaseUrl, `UPDATE "Application" SET "requireDpop" = true WHERE "clientId" = $1`, [app.clientId]);
        const code = dpopQuickstartSnippets(app, { issuer: on.issuer, apiUrl: on.apiUrl })[0]!.code;
        const result = await run("typescript", code, { env: { CLIENT_SECRET: app.clientSecret! } });
        expect(result.status, result.stderr).toBe(0);
        // The seeded world's five newest messages (read with a bearer token); the nonce server's world has none.
        const newest =
          on === server
            ? ((await (await fetch(`${server.apiUrl}/global-chat/messages?limit=5`, { headers: { authorization: `Bearer ${await appToken(chatApp)}` } })).json()) as {
                data: { messages: { text: string; author: { handle: string } }[] };
              }).data.messages
            : [];
        expect(result.stdout.trimEnd()).toBe(["token_type: dpop", ...newest.map((m) => `${m.author.handle}: ${m.text}`)].join("\n"));
      }
    } finally {
      await nonced.stop();
    }
  });
});

describe("private_key_jwt (/docs/authentication)", () => {
  it("the key pair command makes a key pair; with its public keys set, the snippet gets a token with the private one and reads the chat", async () => {
    const made = await run("curl", `cd ${JSON.stringify(WORK)} && ${KEY_PAIR_COMMAND}`);
    expect(made.status, made.stderr).toBe(0);
    const app = await createTestApp(server.databaseUrl, { type: "api", scopes: ["svc:chat.read"] });
    const jwks = path.join(WORK, "jwks.json");
    const set = await runCli(server.databaseUrl, ["apps", "keys", "set", app.clientId, "--jwks-file", jwks]);
    expect(set.code, set.stderr).toBe(0);
    const code = privateKeyJwtQuickstartSnippets(app, { issuer: server.issuer, apiUrl: server.apiUrl })[0]!.code;
    // The sign-in service drops its cached client when the change is announced; a first run may race it.
    let result = await run("typescript", code, { env: { PRIVATE_KEY_FILE: path.join(WORK, "private-key.json") } });
    if (result.status !== 0) result = await run("typescript", code, { env: { PRIVATE_KEY_FILE: path.join(WORK, "private-key.json") } });
    expect(result.status, result.stderr).toBe(0);
    const newest = ((await (await fetch(`${server.apiUrl}/global-chat/messages?limit=5`, { headers: { authorization: `Bearer ${await appToken(chatApp)}` } })).json()) as {
      data: { messages: { text: string; author: { handle: string } }[] };
    }).data.messages;
    expect(result.stdout.trimEnd()).toBe(newest.map((m) => `${m.author.handle}: ${m.text}`).join("\n"));
  });
});

async function appToken(app: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: app.clientId, client_secret: app.clientSecret }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
