import type { Metadata } from "next";
import { DocsPage } from "@/components/docs/docs-page";
import { TableScroll } from "@/components/ui/table-scroll";
import { CodeBlock } from "@/components/ui/code-block";
import { DEFAULT_REQUESTS_PER_MINUTE, DEFAULT_USER_QUOTA_PERCENT, QUOTA_WINDOW_SECONDS } from "@/lib/schemas/rate-limits";

export const metadata: Metadata = { title: "Errors and limits" };

const ERRORS: [number, string, string][] = [
  [400, "invalid_request", "A malformed query parameter or body (the message names the field), or a body over 64 KiB (413)."],
  [400, "invalid_reply", "reply_to_id does not reference a real message."],
  [401, "unauthorized", "No token on an endpoint that needs one."],
  [
    401,
    "invalid_token",
    "The token is expired, malformed or forged, or was revoked (app suspended or deleted, secret rolled, access revoked, refresh token reused, signed out) — also on public endpoints. Get a new token.",
  ],
  [403, "insufficient_scope", "The token lacks the endpoint's scope. Register the scope and get a new token."],
  [403, "requires_user", "An app-only token on an endpoint that acts for a person. Use a login client."],
  [
    403,
    "forbidden",
    "The account is disabled (every call with its tokens, until an admin enables it), or the action is not allowed (a muted account posting to chat).",
  ],
  [404, "not_found", "No such endpoint under /api/v1, or no such user profile."],
  [404, "user_not_found", "The target user of an action does not exist."],
  [405, "method_not_allowed", "Wrong HTTP method; the Allow header lists the right ones."],
  [
    409,
    "idempotency_key_in_use",
    "A request with the same Idempotency-Key is still being processed. Retry after Retry-After seconds: you get its result.",
  ],
  [
    422,
    "idempotency_key_reused",
    "The Idempotency-Key was used in the last 24 hours with a different request (method, path or body). Use a new key for a new request.",
  ],
  [
    429,
    "rate_limited",
    "Your app used its request quota for this minute, or an account posted to chat faster than once every 2 seconds. Wait Retry-After seconds.",
  ],
  [429, "poke_cooldown", "The same person was poked within 24 hours; next_allowed_at says when you can again."],
  [500, "internal_error", "Something failed on our side. Safe to retry with exponential backoff."],
];

const LIMITS: [string, string][] = [
  [
    "Every request with a token",
    `${DEFAULT_REQUESTS_PER_MINUTE.toLocaleString("en-US")} requests per minute per app, over all its tokens (admins can set another quota for an app; the app page shows yours)`,
  ],
  ["GET /me/notifications", "limit 1–50 (default 10, out-of-range falls back to 10); page from 1"],
  ["GET /global-chat/messages", "limit default 20, capped at 100"],
  ["GET /users", "limit default 25, capped at 100; opaque cursor"],
  ["POST /global-chat/messages", "text up to 8192 bytes; one message per 2 seconds per account"],
  ["POST /users/{handle}/poke", "one poke per target per 24 hours"],
  ["POST /directory/resolve", "1 to 50 identifiers per request"],
  ["Any request body", "64 KiB"],
];

export default function ErrorsPage() {
  return (
    <DocsPage
      path="/docs/errors"
      title="Errors and limits"
      lead="Every error from the API has the same shape, on every endpoint. Branch on the code, show the message."
    >
      <CodeBlock
        title="Error envelope"
        language="json"
        code={`HTTP/1.1 429 Too Many Requests
Retry-After: 2

{ "error": { "code": "rate_limited", "message": "Slow down: one message every 2 seconds." } }`}
      />
      <h2 id="codes">API error codes</h2>
      <TableScroll label="API error codes">
        <table>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Code</th>
              <th scope="col">Meaning and what to do</th>
            </tr>
          </thead>
          <tbody>
            {ERRORS.map(([status, code, text]) => (
              <tr key={code}>
                <td>{status}</td>
                <td>
                  <code>{code}</code>
                </td>
                <td>{text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <h2 id="www-authenticate">The WWW-Authenticate header</h2>
      <p>
        Every <code>401</code> and every <code>insufficient_scope</code> from the API also says, in its{" "}
        <code>WWW-Authenticate</code> header, what went wrong and where to get a token: the error, the scope that was
        missing, and the address of the API&apos;s protected resource metadata (RFC 9728), which names the sign-in
        service. A client that knows only the API&apos;s address finds everything else from there (the sign-in
        service&apos;s metadata is also at the RFC 8414 address, <code>/.well-known/oauth-authorization-server/realms/platform</code>).
      </p>
      <CodeBlock
        title="A token without the scope"
        language="http"
        code={`HTTP/1.1 403 Forbidden
WWW-Authenticate: Bearer error="insufficient_scope", scope="svc:chat.write",
  resource_metadata="https://platform.example/.well-known/oauth-protected-resource/api/v1"

{ "error": { "code": "insufficient_scope", "message": "This endpoint needs the svc:chat.write scope." } }`}
      />
      <p>
        A token is for one resource: the API, unless the token request named another with <code>resource</code>{" "}
        (RFC 8707). The API refuses a token meant for another resource with <code>invalid_token</code>.
      </p>
      <h2 id="oauth-errors">Sign-in errors</h2>
      <p>
        The token endpoint answers in OAuth form — <code>{`{ "error": "invalid_grant", "error_description": "…" }`}</code>:
      </p>
      <ul>
        <li>
          <code>invalid_client</code>: the client ID or secret is wrong (retired, rolled or mistyped), or the app is not
          approved — it may still be waiting for review, or was suspended. The answer is the same in every case (it does
          not tell a stranger whether an app exists): check the app&apos;s status on its page first.
        </li>
        <li>
          <code>invalid_scope</code> (400): a requested scope the platform does not know, or an <code>svc:</code> scope
          your app is not registered for; <code>error_description</code> and <code>scope</code> name it. Register the
          scope on the app&apos;s page (a change an admin reviews) or stop asking for it. The OpenID Connect scopes{" "}
          <code>openid</code>, <code>profile</code> and <code>offline_access</code> are always accepted from login
          clients. The same applies to authorization requests (an <code>error=invalid_scope</code> redirect) and to a
          refresh that asks for a scope its sign-in was not granted.
        </li>
        <li>
          <code>invalid_grant</code>: a code that was used or expired, a different <code>redirect_uri</code>, a wrong
          or missing <code>code_verifier</code>, or a refresh token that expired or was revoked.
        </li>
        <li>
          <code>unauthorized_client</code> (400): a grant type your app may not use — <code>client_credentials</code>{" "}
          from a login app, <code>authorization_code</code> or <code>refresh_token</code> from an API app, the device
          code grant from a login app without device sign-in. <code>unsupported_grant_type</code>: one no app may use.
        </li>
        <li>
          <code>invalid_target</code> (400): a <code>resource</code> that is not one of the platform&apos;s (the API,{" "}
          <code>/api/v1</code>, or the MCP server, <code>/mcp</code>).
        </li>
        <li>
          Authorization redirects report problems as <code>error</code> and <code>error_description</code> query
          parameters; an unregistered <code>redirect_uri</code> shows an error page instead of redirecting.
        </li>
      </ul>
      <p>
        Every token endpoint answer, success or error, carries an <code>X-Request-Id</code> (send your own to choose it).
        Your app&apos;s client credentials, authorization code and refresh token requests are in its request log under
        routes like <code>token:client_credentials</code>, failed ones too, with the error code and{" "}
        <code>error_description</code>; find one by its id on the Usage tab or with{" "}
        <code>platform apps requests CLIENT_ID --request-id ID</code>. That includes <code>invalid_client</code> for your
        app&apos;s client ID (a wrong, retired or rolled secret, or the app waiting for review or suspended) and{" "}
        <code>unauthorized_client</code>. Not logged: a client ID no app has (anyone can send any client ID), a request
        without a client ID or a grant type the platform does not offer, and device code polling.
      </p>
      <h2 id="limits">Limits</h2>
      <TableScroll label="Limits">
        <table>
          <tbody>
            {LIMITS.map(([what, limit]) => (
              <tr key={what}>
                <th scope="row">
                  <code>{what}</code>
                </th>
                <td>{limit}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <h2 id="rate-limit-headers">Rate-limit headers</h2>
      <p>
        Every API response to a request with a token says which limits apply and how much of each is left, so you can
        slow down before a 429. Two standards are sent side by side: <code>RateLimit-Policy</code> and{" "}
        <code>RateLimit</code> of the IETF draft (every limit of the endpoint), and the widely used{" "}
        <code>X-RateLimit-*</code> headers (the limit that runs out first). Requests without a token (the public profile)
        count against no app and carry none of them.
      </p>
      <CodeBlock
        title="A chat post, just sent"
        language="http"
        code={`HTTP/1.1 201 Created
RateLimit-Policy: "app";q=${DEFAULT_REQUESTS_PER_MINUTE};w=${QUOTA_WINDOW_SECONDS}, "chat-post";q=1;w=2
RateLimit: "app";r=5987;t=41, "chat-post";r=0;t=2
X-RateLimit-Limit: 1
X-RateLimit-Remaining: 0
X-RateLimit-Reset: 1764000002`}
      />
      <TableScroll label="Rate-limit headers">
        <table>
          <thead>
            <tr>
              <th scope="col">Header</th>
              <th scope="col">What it says</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">
                <code>RateLimit-Policy</code>
              </th>
              <td>
                Each limit: <code>&quot;app&quot;</code> (your app&apos;s quota: <code>q</code> requests per <code>w</code> seconds);
                with a user&apos;s token also <code>&quot;user&quot;</code> (that user&apos;s share of the app&apos;s quota,{" "}
                {DEFAULT_USER_QUOTA_PERCENT} % by default, so one person cannot spend it for everyone); and on chat posts <code>&quot;chat-post&quot;</code> (1 per 2 seconds per account) or on pokes{" "}
                <code>&quot;poke&quot;</code> (1 per 24 hours per target).
              </td>
            </tr>
            <tr>
              <th scope="row">
                <code>RateLimit</code>
              </th>
              <td>
                For each limit known for this request: <code>r</code> requests remaining, <code>t</code> seconds until it
                resets. The quota&apos;s window is the calendar minute.
              </td>
            </tr>
            <tr>
              <th scope="row">
                <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code>, <code>X-RateLimit-Reset</code>
              </th>
              <td>
                The limit that runs out first: after a chat post or poke that endpoint&apos;s (0 remaining), otherwise your
                app&apos;s quota. <code>X-RateLimit-Reset</code> is in Unix seconds.
              </td>
            </tr>
          </tbody>
        </table>
      </TableScroll>
      <p>
        Over the quota, every call of the app gets <code>429 rate_limited</code> with <code>Retry-After</code> until the
        minute ends; over a user&apos;s share, only that user&apos;s calls do. The 429&apos;s message names the limit
        (<code>Limit &quot;app&quot;</code> or <code>Limit &quot;user&quot;</code>), and its <code>RateLimit</code> header shows it
        at <code>r=0</code>. The quota holds across all of the platform&apos;s server processes (counted in the database, in
        batches of 2 % of the quota, so an app may be admitted a few percent less than its quota, never more). Requests
        refused for a missing scope count, and so do requests with your token to a path or method the API does not have
        (<code>404 not_found</code>, <code>405 method_not_allowed</code>; they carry the rate-limit headers, and over the
        quota they get the 429 too), as GitHub counts its 404s: a client stuck retrying a wrong URL spends its own quota,
        not the platform&apos;s. Requests with an invalid token, or none, count against no app.
      </p>
      <h2 id="idempotency">Retrying writes safely: Idempotency-Key</h2>
      <p>
        <code>POST /global-chat/messages</code> and <code>POST /users/{"{handle}"}/poke</code> accept an{" "}
        <code>Idempotency-Key</code> header (1 to 255 printable ASCII characters; a fresh UUID per request is ideal). When a
        request times out or its connection drops, send it again with the same key: within 24 hours, the same key from the
        same app and user with the same request returns the first answer again — same status and body, with{" "}
        <code>Idempotent-Replayed: true</code> — and nothing is posted or poked twice. A replay does not count toward the
        chat or poke limits.
      </p>
      <ul>
        <li>
          The same key with a different request (method, path or body) is <code>422 idempotency_key_reused</code>.
        </li>
        <li>
          While the first request with the key is still running, another one is <code>409 idempotency_key_in_use</code>{" "}
          with <code>Retry-After</code>.
        </li>
        <li>
          Only successes are kept: after an error (for example <code>429 rate_limited</code>) the key is free again and a
          retry runs anew. Keys belong to one app and one user and expire after 24 hours.
        </li>
      </ul>
      <CodeBlock
        title="A retry-safe chat post"
        language="bash"
        code={`curl -X POST "$API/global-chat/messages" \\
  -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\
  -H "Idempotency-Key: 5f0c6a4e-3c1b-4d8e-9a51-0e1f2a3b4c5d" \\
  -d '{"text":"hello"}'`}
      />
      <h2 id="pagination">Pagination</h2>
      <p>
        Lists use cursors. Pass <code>next_cursor</code> back verbatim (as <code>before</code> for chat, as{" "}
        <code>cursor</code> for the directory); a page deep in the list costs the same as the first. A malformed cursor is{" "}
        <code>400 invalid_request</code>.
      </p>
      <h2 id="usage">Usage and the request log</h2>
      <p>
        Every API call made with your app&apos;s token is counted on your app&apos;s <strong>Usage</strong> tab (My apps →
        your app → Usage), within a few seconds: requests over time by status class, latency (p50 and p95), errors by
        code and the most used routes, for the last 24 hours, 7 days or 30 days. Token requests (client credentials,
        authorization code, refresh) are counted per grant type. Calls without a valid token (<code>401</code>) belong to
        no app and are not counted. A call with your token to a path or method the API does not have is your app&apos;s:
        it is counted under &quot;Unknown paths and methods&quot; and logged with the path it asked for (without the query).
      </p>
      <p>
        The <strong>request log</strong> below the charts lists your app&apos;s latest requests: time, route (as{" "}
        <code>/users/{"{username}"}</code>, never the concrete path), status, error code, latency, the request id and, for
        user tokens, whose. It keeps at least the last 1,000 requests and every error answer of the last 7 days (up to
        10,000). No tokens, bodies or query strings are stored. Every response carries <code>X-Request-Id</code> (send
        your own, 8–64 letters, digits, <code>.</code>, <code>_</code> or <code>-</code>, to trace a call end to end):
        log it, and search for it on the Usage tab when a user reports a problem. Your app&apos;s whole team sees its
        usage, viewers included.
      </p>
    </DocsPage>
  );
}
