import type { Metadata } from "next";
import Link from "next/link";
import { DocsPage } from "@/components/docs/docs-page";
import { CodeBlock } from "@/components/ui/code-block";
import { TableScroll } from "@/components/ui/table-scroll";
import { env } from "@/lib/env";
import { SANDBOX_CLAIM, SANDBOX_CLIENT_PREFIX } from "@/lib/schemas/sandboxes";

export const metadata: Metadata = { title: "Build in the sandbox, go live after review" };

/** Issue 26's guide: what the sandbox is, how to use it before review, and what it never touches. */
export default function SandboxGuidePage() {
  const { ISSUER, API_URL } = env();
  return (
    <DocsPage
      path="/docs/sandbox"
      title="Build in the sandbox, go live after review"
      lead="Every app has a sandbox from the minute it is registered: its own client ID, a synthetic world of generated people, test users who can sign in, and events you trigger yourself. Build and demo everything there while your app waits for review; nothing you do reaches a real person."
    >
      <h2 id="credentials">Sandbox credentials</h2>
      <p>
        The sandbox is a twin of your app. Its client ID is <code>{SANDBOX_CLIENT_PREFIX}</code> followed by the app&apos;s
        client ID (<code>{SANDBOX_CLIENT_PREFIX}api_…</code> or <code>{SANDBOX_CLIENT_PREFIX}app_…</code>); find it on the
        app page and its <strong>Sandbox</strong> tab. It has the same type, scopes and redirect URIs as your app&apos;s
        current configuration — changes still waiting for review included, so the sandbox is where you try them — and it
        needs no review: it works while the app is pending or rejected, and stops only while the app is suspended.
      </p>
      <ul>
        <li>
          <strong>API key client:</strong> the sandbox has its own secret, shown <strong>once</strong> when you register
          the app, with the app&apos;s credentials. Lost it? <strong>Roll sandbox secret</strong> on the Sandbox tab shows
          a new one once; the old one and every sandbox token stop working at once. The live secret is separate and comes
          after approval.
        </li>
        <li>
          <strong>Login client:</strong> no secret, as for the app itself. People sign in through the sandbox client ID
          with PKCE — but only <a href="#test-users">test users</a>.
        </li>
      </ul>
      <CodeBlock
        title="A sandbox token with client credentials"
        code={`read -rs -p "Sandbox client secret: " SANDBOX_SECRET; echo
ACCESS_TOKEN=$(curl -s -X POST "${ISSUER}/protocol/openid-connect/token" \\
  -d grant_type=client_credentials \\
  -d client_id=${SANDBOX_CLIENT_PREFIX}$CLIENT_ID \\
  --data-urlencode "client_secret=$SANDBOX_SECRET" | jq -r .access_token)

# The same API, the same paths: the token decides which world is read.
curl -s "${API_URL}/global-chat/messages?limit=5" -H "Authorization: Bearer $ACCESS_TOKEN"`}
      />
      <p>
        Before approval, the app page&apos;s quickstarts are filled in with the sandbox credentials and say so; once the
        app is approved, a <strong>Live / Sandbox</strong> switch offers both. The{" "}
        <Link href="/docs/sdk">SDK and quickstarts</Link> work unchanged with a sandbox client ID.
      </p>

      <h2 id="claim">
        The <code>{SANDBOX_CLAIM}</code> claim
      </h2>
      <p>
        A sandbox access token is a JWT like any other, with one extra claim: <code>&quot;{SANDBOX_CLAIM}&quot;: true</code>{" "}
        (a live token has no such claim). Your code can read it to label or refuse sandbox traffic. The API accepts it
        only for sandbox data, and a live token never reads sandbox data.
      </p>
      <CodeBlock
        title="A sandbox access token's payload (abridged)"
        language="json"
        code={`{
  "iss": "${ISSUER}",
  "client_id": "${SANDBOX_CLIENT_PREFIX}api_…",
  "scope": "svc:chat.read",
  "${SANDBOX_CLAIM}": true,
  "exp": 1767225600
}`}
      />

      <h2 id="world">The synthetic world</h2>
      <p>
        Each sandbox has its own generated people — about 50, with profiles, friendships, stats, Beetle cards and
        notifications — and a few hundred chat messages. The world is built on the first API call with a sandbox token
        (the Sandbox tab says when). Everything the API does works there, with the same envelopes, limits and errors: a
        chat post appears only in your sandbox&apos;s chat, a poke notifies only a synthetic person.
      </p>

      <h2 id="isolation">What is isolated</h2>
      <TableScroll label="What a sandbox token and a live token can reach">
        <table>
          <thead>
            <tr>
              <th scope="col">Data</th>
              <th scope="col">Sandbox token</th>
              <th scope="col">Live token</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">People, profiles, directory</th>
              <td>
                this sandbox&apos;s synthetic people only (<code>GET /users/alice</code> is 404 unless the sandbox made its
                own)
              </td>
              <td>real people only</td>
            </tr>
            <tr>
              <th scope="row">Chat, pokes, notifications</th>
              <td>this sandbox&apos;s chat and people</td>
              <td>the live chat and real people</td>
            </tr>
            <tr>
              <th scope="row">Other apps&apos; sandboxes</th>
              <td>never</td>
              <td>never</td>
            </tr>
            <tr>
              <th scope="row">Webhooks and the event stream</th>
              <td>sandbox events only</td>
              <td>live events only</td>
            </tr>
            <tr>
              <th scope="row">Quota</th>
              <td>the sandbox&apos;s own (600 requests a minute by default)</td>
              <td>the app&apos;s quota</td>
            </tr>
          </tbody>
        </table>
      </TableScroll>

      <h2 id="test-users">Test users</h2>
      <p>
        To try a login client, add test users on the Sandbox tab (up to 20 per sandbox). Each gets a generated password,
        shown <strong>once</strong>. They sign in on the platform&apos;s hosted login page — which shows a clear{" "}
        <strong>Sandbox</strong> banner — only through the sandbox client ID, and device sign-in works the same way. A
        test user cannot sign in to a live client or to this portal, and a real account cannot sign in to a sandbox
        client. Remove a test user on the same tab.
      </p>

      <h2 id="reset">Reset</h2>
      <p>
        <strong>Reset sandbox</strong> on the Sandbox tab (after a confirmation) deletes the synthetic world — people,
        friendships, notifications, chat, including everything your app posted — and generates a fresh one. Live data is
        never touched. Use it before a demo, or when your tests need a known starting point.
      </p>

      <h2 id="events">Trigger events</h2>
      <p>
        Webhooks and the <Link href="/docs/events">event stream</Link> deliver sandbox events to the sandbox only. To test
        your receiver without waiting for something to happen, choose an event type under <strong>Trigger event</strong>{" "}
        on the Sandbox tab: the platform makes one with synthetic data and delivers it like any other.
      </p>

      <h2 id="go-live">Go live</h2>
      <p>
        When an admin approves the app, its live credentials work: an API key client&apos;s live secret is shown once on
        the app page, and a login client&apos;s client ID signs real people in. Switch the client ID (and secret) your
        app uses; nothing else changes. The sandbox stays yours for testing, with its own quota.
      </p>

      <h2 id="cli">From the command line</h2>
      <p>
        Operators and automation do the same with the platform CLI; every command takes <code>--json</code>.
      </p>
      <CodeBlock
        title="apps sandbox"
        code={`npm run platform -- apps sandbox show CLIENT_ID --json
npm run platform -- apps sandbox secret roll CLIENT_ID --json
npm run platform -- apps sandbox users add CLIENT_ID [--handle H] --json
npm run platform -- apps sandbox users remove CLIENT_ID HANDLE
npm run platform -- apps sandbox reset CLIENT_ID
npm run platform -- apps sandbox trigger CLIENT_ID EVENT_TYPE --json`}
      />
    </DocsPage>
  );
}
