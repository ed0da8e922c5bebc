import type { Metadata } from "next";
import { DocsPage } from "@/components/docs/docs-page";
import { TableScroll } from "@/components/ui/table-scroll";
import { CodeBlock } from "@/components/ui/code-block";

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
  [429, "rate_limited", "Posting to chat faster than once every 2 seconds. Wait Retry-After seconds."],
  [429, "poke_cooldown", "The same person was poked within 24 hours; next_allowed_at says when you can again."],
  [500, "internal_error", "Something failed on our side. Safe to retry with exponential backoff."],
];

const LIMITS: [string, string][] = [
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
      <h2 id="oauth-errors">Sign-in errors</h2>
      <p>
        The token endpoint answers in OAuth form — <code>{`{ "error": "invalid_grant", "error_description": "…" }`}</code>:
      </p>
      <ul>
        <li>
          <code>invalid_client</code>: the app is not approved or suspended, or the secret is not one of its active
          secrets (wrong, retired or rolled).
        </li>
        <li>
          <code>invalid_grant</code>: a code that was used or expired, a different <code>redirect_uri</code>, a wrong
          or missing <code>code_verifier</code>, or a refresh token that expired or was revoked.
        </li>
        <li>
          Authorization redirects report problems as <code>error</code> and <code>error_description</code> query
          parameters; an unregistered <code>redirect_uri</code> shows an error page instead of redirecting.
        </li>
      </ul>
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
        no app and are not counted; neither are paths that do not exist.
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
