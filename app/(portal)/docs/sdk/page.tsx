import type { Metadata } from "next";
import Link from "next/link";
import { Quickstart } from "@/components/apps/quickstart";
import { DocsPage } from "@/components/docs/docs-page";
import { CodeBlock } from "@/components/ui/code-block";
import { env } from "@/lib/env";
import { PLACEHOLDER_REDIRECT_URI } from "@/lib/quickstarts";

export const metadata: Metadata = { title: "SDK and quickstarts" };

export default function SdkPage() {
  const { ISSUER, API_URL, APP_URL } = env();
  return (
    <DocsPage
      path="/docs/sdk"
      title="SDK and quickstarts"
      lead="The TypeScript SDK gives you every endpoint typed from the OpenAPI document, tokens that renew themselves, sign-in helpers and one error type. Quickstarts in curl, TypeScript and Python get you to a first call in minutes."
    >
      <h2 id="install">Install</h2>
      <CodeBlock title="npm" code={`npm install ${APP_URL}/sdk/latest.tgz`} />
      <p>
        This platform serves the SDK it was built with: <code>{APP_URL}/sdk/latest.tgz</code> (cached for five minutes),
        or a fixed version at <code>{APP_URL}/sdk/social-dev-platform-sdk-&lt;version&gt;.tgz</code> (never changes;
        pin it for reproducible installs). Operators may publish the same package to a registry as{" "}
        <code>@social-dev-platform/sdk</code>; then <code>npm install @social-dev-platform/sdk</code> works too. ES
        modules and CommonJS, types included, Node.js 20.19 or later (or any runtime with <code>fetch</code>). Its
        endpoint types are generated from <Link href="/api/v1/openapi.json">the OpenAPI document</Link> with
        openapi-typescript and its calls go through openapi-fetch, so a wrong path, parameter or field is a type error,
        not a runtime surprise. Sign-in uses openid-client.
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

      <h2 id="retries">Retries, time limits and rate limits</h2>
      <p>
        The client retries for you, up to <code>maxRetries</code> times (default 2): a 429 or 503 after its{" "}
        <code>Retry-After</code> (plus a little jitter; a wait longer than <code>maxRetryAfterMs</code>, default 60 s,
        such as a poke&apos;s 24-hour cooldown, comes back to you at once), and a network failure, a timeout or a 502/504
        with exponential backoff. It retries GETs, and POSTs that carry an <code>Idempotency-Key</code>, which it adds to
        every POST by itself (the same key on every attempt of one call): a post whose answer was lost is retried without
        posting twice. <code>idempotencyKeys: false</code> on the client or <code>idempotencyKey: false</code> on a call
        sends none (that POST is then never retried); <code>idempotencyKey: &quot;…&quot;</code> sets your own.
        Each attempt has <code>timeoutMs</code> (default 30 s); <code>signal</code> aborts a call, waits included.
      </p>
      <CodeBlock
        title="options"
        language="ts"
        code={`const client = createClient({ baseUrl: "${API_URL}", tokenProvider, maxRetries: 3, timeoutMs: 10_000 });

const page = await client.GET("/global-chat/messages", { params: { query: { limit: 20 } }, signal: AbortSignal.timeout(30_000) });
console.log(page.requestId, page.rateLimit); // { limit, remaining, reset (Unix seconds), policy: "app" }

await client.chat.post("hello", { idempotencyKey: orderId, maxRetries: 5 });`}
      />
      <p>
        Every result carries <code>requestId</code> (its <code>X-Request-Id</code>) and <code>rateLimit</code> (the
        limit that binds first: <code>limit</code>, <code>remaining</code>, <code>reset</code>, <code>policy</code>;
        null without a token). Neither is enumerable, so they stay out of <code>JSON.stringify</code> and spreads.
      </p>

      <h2 id="errors">Errors</h2>
      <p>
        Every failure is thrown as one <code>PlatformError</code> with <code>status</code>, <code>code</code>,{" "}
        <code>message</code>, <code>nextAllowedAt</code> (on <code>poke_cooldown</code>), <code>retryAfter</code> (on
        429), <code>rateLimit</code> and <code>requestId</code> (the <code>X-Request-Id</code> to quote when you report a
        problem). <code>code</code> is a union: the API&apos;s documented codes (generated from the OpenAPI document, so a
        new code is a type change and a misspelled one a type error), the sign-in service&apos;s OAuth errors, and the
        SDK&apos;s own: <code>network_error</code> and <code>timeout</code> (no answer, after the retries),{" "}
        <code>aborted</code> (your signal), <code>client_error</code> (a local check) and <code>http_error</code> (a code
        this SDK version does not know yet, kept in <code>serverCode</code>). See{" "}
        <Link href="/docs/errors">Errors and limits</Link>.
      </p>
      <CodeBlock
        title="errors"
        language="ts"
        code={`import { PlatformError } from "@social-dev-platform/sdk";

try {
  await client.users.poke("bob");
} catch (error) {
  if (error instanceof PlatformError && error.code === "poke_cooldown") {
    console.log(\`poke bob again after \${new Date(error.nextAllowedAt! * 1000).toISOString()}\`);
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
