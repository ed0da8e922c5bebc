import type { Metadata } from "next";
import Link from "next/link";
import { DocsPage } from "@/components/docs/docs-page";
import { CodeBlock } from "@/components/ui/code-block";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Connect an AI agent" };

/**
 * Issue 40's guide: how an AI agent (an MCP client) signs a person in without registering, what its
 * developer publishes, what the person sees, how scopes and step-up work, and how access is revoked.
 */
export default function AgentsGuidePage() {
  const { APP_URL, ISSUER, API_URL } = env();
  return (
    <DocsPage
      path="/docs/agents"
      title="Connect an AI agent"
      lead="AI agents (Claude, ChatGPT, VS Code, Cursor and other MCP clients) sign a person in with the platform like any app, without a developer registering them first: the agent names itself by the URL of a small JSON document it publishes. The person sees who is asking and what for, and can take the access back at any time."
    >
      <h2 id="how">How an agent finds the platform</h2>
      <p>
        An agent needs only the address of what it wants to use, for example <code>{`${APP_URL}/mcp`}</code> or the API at{" "}
        <code>{API_URL}</code>. A call without a token answers <code>401</code> with a <code>WWW-Authenticate</code> header
        naming the resource&apos;s metadata (RFC 9728); that names the sign-in service, whose metadata (RFC 8414, at{" "}
        <code>{`${APP_URL}/.well-known/oauth-authorization-server/realms/platform`}</code>) says{" "}
        <code>client_id_metadata_document_supported: true</code>. Agents built on the official MCP SDKs do all of this on their
        own.
      </p>
      <CodeBlock
        title="What an agent reads first"
        code={`curl -si ${API_URL}/me | grep -i www-authenticate
# WWW-Authenticate: Bearer realm="api", resource_metadata="${APP_URL}/.well-known/oauth-protected-resource/api/v1"

curl -s ${APP_URL}/.well-known/oauth-protected-resource/mcp
# { "resource": "${APP_URL}/mcp", "authorization_servers": ["${ISSUER}"], … }`}
      />

      <h2 id="metadata-document">What an agent&apos;s developer publishes</h2>
      <p>
        The agent&apos;s <code>client_id</code> is the https URL of its <strong>client metadata document</strong>
        (draft-ietf-oauth-client-id-metadata-document). The platform fetches it at the first sign-in and keeps it as long as its{" "}
        <code>Cache-Control: max-age</code> says, between 5 minutes and 24 hours. The document must:
      </p>
      <ul>
        <li>
          name its own URL, exactly, as <code>client_id</code>;
        </li>
        <li>
          list its <code>redirect_uris</code> (https, a loopback <code>http://127.0.0.1:PORT/…</code> for a tool on the
          person&apos;s computer, or an app&apos;s own scheme);
        </li>
        <li>
          use <code>&quot;token_endpoint_auth_method&quot;: &quot;none&quot;</code> with PKCE (S256), or{" "}
          <code>&quot;private_key_jwt&quot;</code> with a <code>jwks_uri</code>: its public keys (a JWK Set of at most 10
          signing keys and 16 KiB, fetched under the same rules as the document and kept as long), with which it signs a{" "}
          <code>client_assertion</code> in every token request, PKCE still required. An agent holds no shared secret: a
          document with <code>client_secret</code> or a <code>client_secret_*</code> method is refused, and so is a key set
          with a private key in it;
        </li>
        <li>be at most 5 KiB, answered with 200 at that very URL (no redirect is followed), within 5 seconds;</li>
        <li>be served from a public address: private, loopback and link-local addresses are refused.</li>
      </ul>
      <CodeBlock
        title="https://assistant.example.com/oauth/client.json"
        language="json"
        code={`{
  "client_id": "https://assistant.example.com/oauth/client.json",
  "client_name": "Example Assistant",
  "client_uri": "https://assistant.example.com",
  "logo_uri": "https://assistant.example.com/oauth/logo.png",
  "redirect_uris": ["https://assistant.example.com/oauth/callback"],
  "grant_types": ["authorization_code", "refresh_token"],
  "response_types": ["code"],
  "token_endpoint_auth_method": "none"
}`}
      />
      <p>
        A document that fails any rule stops the sign-in on the platform&apos;s error page, with the reason (for example
        &ldquo;names another client_id&rdquo; or &ldquo;answered a redirect&rdquo;), so its developer sees what to fix. Then
        the usual flow follows: authorization code with PKCE, the <code>iss</code> parameter in the redirect (RFC 9207), and a{" "}
        <code>resource</code> parameter (RFC 8707) choosing what the token is for.
      </p>

      <h2 id="registration">Older clients: dynamic registration</h2>
      <p>
        A client that cannot publish a document may register itself (RFC 7591) when the platform&apos;s operator allows it
        (<code>DYNAMIC_REGISTRATION=agents</code>): the metadata then lists a <code>registration_endpoint</code>, and a{" "}
        <code>POST</code> of the same fields as the document above, without <code>client_id</code>, answers{" "}
        <code>201</code> with a client ID of the form <code>agt_…</code>. The same rules hold (a public client, PKCE, the
        redirect URIs above), and refusals are RFC 7591&apos;s <code>invalid_redirect_uri</code> or{" "}
        <code>invalid_client_metadata</code> with the reason. A registered agent has no domain anyone verified: it may ask
        for read scopes only, whatever the domain rules say, and the consent page tells the person no one verified who
        publishes it. One address may register ten clients an hour (then <code>429</code> with <code>Retry-After</code>).
        Prefer a metadata document: it needs no registration and its domain is verified.
      </p>

      <h2 id="resources">One token, one resource</h2>
      <p>
        A token asked for with <code>resource={`${APP_URL}/mcp`}</code> has that as its <code>aud</code> and works only
        there; the API refuses it, and a token for the API (asked for without <code>resource</code>, as every app does) is
        not one for the MCP server. Refreshing keeps the resource.
      </p>

      <h2 id="scopes">What an agent may ask for, and step-up</h2>
      <p>
        An agent no one at the platform has reviewed may ask for <strong>read scopes</strong> only (<code>svc:…read</code>) and
        the OpenID ones. Asking for more is not an error: the request is narrowed, the consent page lists what is granted, and
        the token&apos;s <code>scope</code> says the same. When the agent later needs a write scope, the API answers{" "}
        <code>403</code> with <code>WWW-Authenticate: Bearer error=&quot;insufficient_scope&quot;, scope=&quot;svc:chat.write&quot;</code>{" "}
        (see <Link href="/docs/errors#www-authenticate">Errors and limits</Link>). The platform&apos;s administrators decide
        per domain: a <strong>trusted</strong> domain&apos;s agents may ask for every scope a person can grant (the agent
        then asks again, and the person consents to the new scope); a domain under <strong>review</strong> waits for an
        admin&apos;s approval before its agents sign anyone in; a <strong>blocked</strong> domain or agent cannot.
      </p>

      <h2 id="consent">What the person sees</h2>
      <p>
        The consent page for an agent shows the name and the logo from its document only as its claims (&ldquo;It says it is
        … and that the logo above is its own&rdquo;), the domain of its client ID, which the platform did verify, the client
        ID in full, and &ldquo;Not reviewed by the platform&rdquo; unless its domain is trusted; then each permission in plain
        words.
      </p>
      <p>
        The logo (<code>logo_uri</code>) is fetched under the same rules as the document and checked like a logo a developer
        uploads: PNG, JPEG or WebP, at most 256 KiB, 16 to 1,024 pixels a side, at most twice as wide as high or the other way round. The platform keeps a copy and
        serves it from its own origin, so a person&apos;s browser never loads anything from the agent&apos;s server; it is
        fetched again only when the document names another. A logo that breaks a rule is left out (the sign-in goes on,
        with the name&apos;s initial) and the reason is in the platform&apos;s log.
      </p>

      <h2 id="revoke">Taking access back</h2>
      <p>
        Agents a person allowed are listed under <Link href="/account/apps">Connected apps</Link> with their domain.
        <strong> Revoke access</strong> ends the agent&apos;s tokens at once, everywhere, like any app&apos;s. Administrators
        can suspend one agent, or block an agent or a whole domain, from the admin area&apos;s Agents page or the
        operator&apos;s CLI (<code>npm run platform -- agents list|show|suspend|resume|block|unblock|trust|untrust|review</code>):
        their tokens stop working within a quarter of a second.
      </p>
    </DocsPage>
  );
}
