import type { Metadata } from "next";
import Link from "next/link";
import { Quickstart } from "@/components/apps/quickstart";
import { DocsPage } from "@/components/docs/docs-page";
import { CodeBlock } from "@/components/ui/code-block";
import { env } from "@/lib/env";
import { PLACEHOLDER_REDIRECT_URI } from "@/lib/quickstarts";

export const metadata: Metadata = { title: "SDK and quickstarts" };

export default function SdkPage() {
  const { ISSUER, API_URL } = env();
  return (
    <DocsPage
      title="SDK and quickstarts"
      lead="The TypeScript SDK gives you every endpoint typed from the OpenAPI document, tokens that renew themselves, sign-in helpers and one error type. Quickstarts in curl, TypeScript and Python get you to a first call in minutes."
    >
      <h2 id="install">Install</h2>
      <CodeBlock title="npm" code="npm install @social-dev-platform/sdk" />
      <p>
        ESM, Node.js 20.19 or later (or any runtime with <code>fetch</code>). Its endpoint types are generated from{" "}
        <Link href="/api/v1/openapi.json">the OpenAPI document</Link> with openapi-typescript and its calls go through
        openapi-fetch, so a wrong path, parameter or field is a type error, not a runtime surprise. Sign-in uses
        openid-client.
      </p>

      <h2 id="api-client">API key client: app-only calls</h2>
      <CodeBlock
        title="app-only.ts"
        language="ts"
        code={`import { clientCredentials, createClient } from "@social-dev-platform/sdk";

const client = createClient({
  baseUrl: "${API_URL}",
  tokenProvider: clientCredentials({
    issuer: "${ISSUER}",
    clientId: process.env.CLIENT_ID!,
    clientSecret: process.env.CLIENT_SECRET!, // never commit or log it
  }),
});

const { data } = await client.GET("/global-chat/messages", { params: { query: { limit: 20 } } });`}
      />
      <p>
        <code>clientCredentials</code> discovers the token endpoint, caches the token and renews it a minute before{" "}
        <code>expires_in</code> runs out — one token, not one per request. Concurrent requests share a single renewal.
        After a <code>401 invalid_token</code> (a rolled secret, a suspension) it fetches a new token on the next call.
      </p>

      <h2 id="calls">Typed calls and helpers</h2>
      <p>
        <code>client.GET</code> and <code>client.POST</code> take any path of the API and resolve to its typed response
        body. Helpers per resource unwrap the <code>{`{ data }`}</code> envelope:
      </p>
      <CodeBlock
        title="helpers"
        language="ts"
        code={`await client.users.get("alice");            // GET /users/{username}
await client.me.get();                      // GET /me (user-delegated)
await client.me.stats();                    // GET /me/stats
await client.chat.post("hello", { replyToId: "42" });
await client.users.poke("bob");
await client.directory.resolve([{ type: "handle", value: "alice" }]);

// Cursor pagination, page by page behind the scenes:
for await (const user of client.users.list()) console.log(user.handle);
for await (const message of client.chat.messages()) console.log(message.text); // newest first

// Follow the chat: polls and yields each new message once, oldest first.
for await (const message of client.chat.follow({ intervalMs: 2000, signal })) console.log(message.text);`}
      />

      <h2 id="errors">Errors</h2>
      <p>
        Every failure — an API error envelope or a sign-in error — is thrown as one <code>PlatformError</code> with{" "}
        <code>status</code>, <code>code</code> (the API&apos;s <code>error.code</code> or the OAuth <code>error</code>),{" "}
        <code>message</code>, <code>nextAllowedAt</code> (on <code>poke_cooldown</code>), <code>retryAfter</code> (on
        429) and <code>requestId</code> (the <code>X-Request-Id</code> to quote when you report a problem). See{" "}
        <Link href="/docs/errors">Errors and limits</Link>.
      </p>
      <CodeBlock
        title="rate limits"
        language="ts"
        code={`import { PlatformError } from "@social-dev-platform/sdk";

try {
  await client.chat.post("hello");
} catch (error) {
  if (error instanceof PlatformError && error.code === "rate_limited") {
    await new Promise((r) => setTimeout(r, (error.retryAfter ?? 2) * 1000));
  } else throw error;
}`}
      />

      <h2 id="login-client">Login client: sign people in</h2>
      <CodeBlock
        title="sign-in.ts"
        language="ts"
        code={`import { createLoginClient } from "@social-dev-platform/sdk";

const login = await createLoginClient({
  issuer: "${ISSUER}",
  clientId: process.env.CLIENT_ID!,
  redirectUri: "${PLACEHOLDER_REDIRECT_URI}",
  postLogoutRedirectUri: "https://app.example.com/",
});

// GET /login: a fresh state and PKCE verifier (S256); keep \`pending\` in the session.
const { url, pending } = await login.startSignIn();
// GET /callback: checks state, exchanges the code with the verifier.
const tokens = await login.finishSignIn(request.url, pending);
// Later: the refresh token rotates, keep the new one. invalid_grant means sign in again.
const next = await login.refresh(tokens.refreshToken!);
// Sign out of the platform too (end_session_endpoint).
const logoutUrl = login.logoutUrl({ idTokenHint: tokens.idToken });`}
      />
      <p>
        <code>refreshingTokens(login, tokens, {"{ onTokens }"})</code> is a token provider for{" "}
        <code>createClient</code> that refreshes shortly before the access token expires and hands you each rotated set
        to store.
      </p>

      <h2 id="device">Device sign-in (bots and CLIs)</h2>
      <p>
        An app without a browser signs a person in with the device flow (RFC 8628), if its registration allows device
        sign-in: show a short code, the person confirms it on the platform in any browser, the app gets user-delegated
        tokens.
      </p>
      <CodeBlock
        title="device.ts"
        language="ts"
        code={`const device = await login.startDeviceSignIn();
console.log(\`Open \${device.verificationUri} and enter \${device.userCode}\`);
const tokens = await device.tokens(); // polls as the server asks; access_denied or expired_token throw`}
      />

      <h2 id="examples">Examples</h2>
      <ul>
        <li>
          <code>examples/signin-web</code> — a plain-Node &ldquo;Sign in with the platform&rdquo; web app: PKCE sign-in,
          profile and stats, refresh, logout.
        </li>
        <li>
          <code>examples/chat-bot</code> — follows the global chat with an app-only token and answers{" "}
          <code>!ping</code> as its operator, signed in through the device flow; honours <code>Retry-After</code>.
        </li>
      </ul>
      <p>Both run in the platform&apos;s own test suite against a real server, so they keep working.</p>

      <h2 id="quickstarts">Quickstarts</h2>
      <p>
        The same snippets are on every app&apos;s page, filled in with its client ID and URIs. Here with placeholders; each
        one is run against a real server in our tests.
      </p>
      <h3 id="quickstart-api">API key client</h3>
      <Quickstart
        idPrefix="docs"
        issuer={ISSUER}
        apiUrl={API_URL}
        app={{ type: "api", clientId: "YOUR_CLIENT_ID", scopes: ["svc:chat.read"], redirectUris: [], postLogoutRedirectUris: [] }}
      />
      <h3 id="quickstart-login">Login client</h3>
      <Quickstart
        idPrefix="docs"
        issuer={ISSUER}
        apiUrl={API_URL}
        app={{ type: "login", clientId: "YOUR_CLIENT_ID", scopes: [], redirectUris: [PLACEHOLDER_REDIRECT_URI], postLogoutRedirectUris: [] }}
      />
    </DocsPage>
  );
}
