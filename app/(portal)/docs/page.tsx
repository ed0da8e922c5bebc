import type { Metadata } from "next";
import Link from "next/link";
import { DocsPage } from "@/components/docs/docs-page";
import { TableScroll } from "@/components/ui/table-scroll";
import { CodeBlock } from "@/components/ui/code-block";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Getting started" };

export default function GettingStartedPage() {
  const { ISSUER, API_URL } = env();
  return (
    <DocsPage
      path="/docs"
      title="Getting started"
      lead="Register an application, wait for approval, get a token, make your first call. Pick the client type that matches who your app acts for."
    >
      <h2 id="choose">1. Choose a client type</h2>
      <TableScroll label="Client types compared">
        <table>
          <thead>
            <tr>
              <th scope="col" />
              <th scope="col">API key client</th>
              <th scope="col">Login client</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Acts as</th>
              <td>the app itself (app-only token)</td>
              <td>a person who signed in (user-delegated token)</td>
            </tr>
            <tr>
              <th scope="row">Grant</th>
              <td>client credentials</td>
              <td>authorization code with PKCE (S256)</td>
            </tr>
            <tr>
              <th scope="row">Credentials</th>
              <td>client ID + client secret (shown once)</td>
              <td>client ID only — never a secret</td>
            </tr>
            <tr>
              <th scope="row">Typical use</th>
              <td>bots, back-ends, data jobs</td>
              <td>web, mobile and single-page apps</td>
            </tr>
          </tbody>
        </table>
      </TableScroll>

      <h2 id="register">2. Register the application</h2>
      <p>
        <Link href="/apps/new">Register an application</Link> in the portal: a name, a description of what it does, the
        type, and the <Link href="/docs/scopes">scopes</Link> it needs. A login client also lists its redirect URIs —
        exact URLs, https (plain http only on <code>localhost</code> and <code>127.0.0.1</code>), no fragment. Tick{" "}
        <strong>Allow device sign-in</strong> if people sign in to it on a device without a browser (a TV, a CLI, a chat
        bot): see <Link href="/docs/authentication#device">Device sign-in</Link>.
      </p>
      <p id="identity">
        People decide on the consent page, so give them what they need to trust the app. Optionally add a{" "}
        <strong>homepage</strong>, a <strong>privacy policy</strong> and <strong>terms of service</strong> link (https
        only) and a <strong>logo</strong>: a PNG, JPEG or WebP image of at most 256 KiB, 16 to 1024 pixels a side and
        roughly square (at most 2:1). The platform checks the file by its content, not its name (an HTML page or an SVG
        renamed <code>.png</code> is refused), stores it and serves it from its own address; hosted pages never load
        images from elsewhere. Without a logo, people see your app&apos;s initial on a coloured square.
      </p>

      <h2 id="approval">3. Wait for approval</h2>
      <p>
        An admin reviews every new application. Until it is approved, token requests with its client ID fail with{" "}
        <code>invalid_client</code> — but you need not wait: its <Link href="/docs/sandbox">sandbox</Link> works from the
        minute it is registered, with synthetic people and test users. The app page shows the decision, and the reviewer&apos;s reason if it was rejected.
        An approved app can later be suspended: its token requests fail with <code>invalid_client</code> and every access
        and refresh token of it is voided at once; reinstating it does not revive them. A rejected app is not a dead
        end: edit it to answer the reviewer&apos;s reason and choose <strong>Save and resubmit</strong>; it goes back to
        the queue, marked as resubmitted.
      </p>
      <p>
        Once approved, the app runs on its approved configuration. Removing scopes or URIs applies at once; anything that
        widens what it can do or changes how people see it — new scopes, new redirect or post-logout URIs, a new name,
        description, link or logo, turning device sign-in on — is reviewed first. The app page shows the change waiting,
        as a before/after diff (old and new logo side by side); until an admin approves it, tokens carry only the approved
        scopes and the consent page shows the approved name, logo and links. If the change
        is refused, the app page says why, and the app keeps working as before.
      </p>

      <h2 id="api-client">4a. API key client: get a token and call the API</h2>
      <p>
        Open the app page after approval: the client secret is shown <strong>once</strong>. Copy it into your secret
        store; the platform keeps only a hash. To rotate it without downtime, add a second secret, deploy it, then retire
        the old one; if it leaked, roll it (every other secret and every access token of the app stop working at once).
        See <Link href="/docs/authentication#revocation">Revocation and rotation</Link>.
      </p>
      <CodeBlock
        title="Client credentials"
        code={`read -rs -p "Client secret: " CLIENT_SECRET; echo
ACCESS_TOKEN=$(curl -s -X POST "${ISSUER}/protocol/openid-connect/token" \\
  -d grant_type=client_credentials \\
  -d client_id=$CLIENT_ID \\
  --data-urlencode "client_secret=$CLIENT_SECRET" | jq -r .access_token)

curl -s "${API_URL}/global-chat/messages?limit=5" -H "Authorization: Bearer $ACCESS_TOKEN"`}
      />
      <p>
        Tokens last <code>expires_in</code> seconds unless revoked earlier (a suspension or a rolled secret). Reuse a
        token until it is close to expiry, and get a new one on <code>401 invalid_token</code>; there is no refresh
        token for this grant.
      </p>

      <h2 id="login-client">4b. Login client: sign people in</h2>
      <ol>
        <li>
          Read the endpoints from <code>{`${ISSUER}/.well-known/openid-configuration`}</code>.
        </li>
        <li>
          Create a random <code>state</code> and PKCE verifier; send the browser to the <code>authorization_endpoint</code>{" "}
          with <code>response_type=code</code>, <code>scope=openid</code>, your <code>redirect_uri</code> and the S256{" "}
          <code>code_challenge</code>. Your registered <code>svc:</code> scopes are added automatically.
        </li>
        <li>People sign in on the platform&apos;s page and, the first time, allow your app&apos;s scopes.</li>
        <li>
          On the callback, check <code>state</code>, then exchange the <code>code</code> at the{" "}
          <code>token_endpoint</code> with the same <code>redirect_uri</code> and the <code>code_verifier</code>.
        </li>
        <li>
          Call the API with the access token, e.g. <code>GET {API_URL}/me</code>. Refresh with the refresh token; it
          rotates on every use.
        </li>
      </ol>
      <p>
        No browser on the device? With device sign-in allowed, the app asks the device authorization endpoint for a code,
        shows it, and polls the token endpoint while the person enters the code at <code>{`${ISSUER}/device`}</code> and
        signs in there (<Link href="/docs/authentication#device">how</Link>).
      </p>
      <p>
        Each app page has ready-to-paste examples in curl, TypeScript and Python with its own client ID; the{" "}
        <Link href="/docs/sdk">TypeScript SDK</Link> does all of this for you. The details are in{" "}
        <Link href="/docs/authentication">Authentication</Link>.
      </p>

      <h2 id="teams">Work on an app as a team</h2>
      <p>
        An app has one owner and a team. On the app page&apos;s <strong>Team</strong> card the owner adds people by
        username as <strong>admins</strong> (they manage everything — settings, secrets, resubmission — but cannot
        delete the app or give it away) or <strong>viewers</strong> (they read the app&apos;s page and change nothing).
        The owner can make someone else the owner; the previous owner stays on the team as an admin. Everyone on the
        team finds the app under <Link href="/apps">My apps</Link>.
      </p>

      <h2 id="consent-page">What people see: the consent page</h2>
      <p>
        The first time someone signs in to your login client, the consent page shows your app&apos;s approved logo, name,
        owner, description and links, and each scope in plain words, and says it is the first time your app asks. If
        your app later gets a scope approved that they have not allowed yet, the next sign-in says your app{" "}
        <strong>now asks for more</strong> and marks the new permissions; what they allowed before is listed as already
        allowed. The page works without JavaScript.
      </p>

      <h2 id="connected-apps">What people see: Connected apps</h2>
      <p>
        Everyone who signs in to your login client and allows it access finds it on their{" "}
        <Link href="/account/apps">Connected apps</Link> page (avatar menu), with what it may do, when they allowed it
        and when it last got tokens. <strong>Revoke access</strong> signs your app out of their account at once: their
        refresh token fails with <code>invalid_grant</code>, their access tokens with <code>401 invalid_token</code>, and
        the next sign-in shows the consent page again. Handle both as &ldquo;signed out&rdquo;.
      </p>

      <h2 id="next">Next</h2>
      <ul>
        <li>
          <Link href="/docs/sdk">SDK and quickstarts</Link> — the typed TypeScript SDK, the example apps, snippets in three
          languages.
        </li>
        <li>
          <Link href="/docs/sandbox">Build in the sandbox, go live after review</Link> — sandbox credentials, the
          synthetic world, test users, reset and triggered events.
        </li>
        <li>
          <Link href="/docs/events">Events and webhooks</Link> — hear what happens as it happens: signed webhooks and a
          live event stream.
        </li>
        <li>
          <Link href="/docs/api-reference">API reference</Link> — every endpoint, parameter and response.
        </li>
        <li>
          <Link href="/docs/errors">Errors and limits</Link> — what each error code means and what to do about it.
        </li>
        <li>
          <Link href="/docs/changes">Versioning and changes</Link> — what may change in <code>/api/v1</code>, what never
          will, and how removals are announced; the <Link href="/docs/changelog">changelog</Link>.
        </li>
      </ul>
    </DocsPage>
  );
}
