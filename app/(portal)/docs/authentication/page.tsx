import type { Metadata } from "next";
import { DocsPage } from "@/components/docs/docs-page";
import { CodeBlock } from "@/components/ui/code-block";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Authentication" };

export default function AuthenticationPage() {
  const { ISSUER, API_URL } = env();
  const endpoints = [
    ["Discovery document", `${ISSUER}/.well-known/openid-configuration`],
    ["Authorization", `${ISSUER}/protocol/openid-connect/auth`],
    ["Token", `${ISSUER}/protocol/openid-connect/token`],
    ["End session (logout)", `${ISSUER}/protocol/openid-connect/logout`],
    ["Keys (JWKS)", `${ISSUER}/protocol/openid-connect/certs`],
    ["User info", `${ISSUER}/protocol/openid-connect/userinfo`],
  ];
  return (
    <DocsPage
      title="Authentication"
      lead="The platform runs an OpenID Connect provider. Apps get bearer access tokens from it and send them to the API."
    >
      <h2 id="endpoints">Endpoints</h2>
      <p>
        The issuer is <code>{ISSUER}</code>. Read the endpoints from the discovery document at run time rather than
        hard-coding them.
      </p>
      <table>
        <tbody>
          {endpoints.map(([name, url]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>
                <code className="break-all">{url}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2 id="client-credentials">Client credentials (API key clients)</h2>
      <p>
        POST a form-encoded body to the token endpoint with <code>grant_type=client_credentials</code>, your{" "}
        <code>client_id</code> and <code>client_secret</code> (or send them with HTTP Basic authentication). The
        response has <code>access_token</code>, <code>expires_in</code> and <code>scope</code>; no refresh token.{" "}
        <code>invalid_client</code> means the app is not approved, is suspended, or the ID and secret do not match.
      </p>
      <p>
        Never log, commit or paste the secret into a shell command line. Rotate it from the app page if it leaks: the
        old secret stops working at once and its tokens are revoked.
      </p>

      <h2 id="pkce">Authorization code with PKCE (login clients)</h2>
      <CodeBlock
        title="1. Redirect the browser"
        code={`GET ${ISSUER}/protocol/openid-connect/auth
  ?client_id=<CLIENT_ID>
  &response_type=code
  &redirect_uri=<a registered redirect URI, verbatim>
  &scope=openid
  &state=<random>
  &code_challenge=<BASE64URL(SHA-256(verifier))>
  &code_challenge_method=S256`}
      />
      <CodeBlock
        title="2. Exchange the code"
        code={`curl -s -X POST "${ISSUER}/protocol/openid-connect/token" \\
  -d grant_type=authorization_code \\
  -d client_id=<CLIENT_ID> \\
  -d code=<code from the callback> \\
  -d redirect_uri=<the same redirect URI> \\
  -d code_verifier=<verifier>`}
      />
      <ul>
        <li>
          The callback carries <code>code</code>, <code>state</code> and <code>iss</code>; compare <code>state</code>{" "}
          with what you stored and abort on a mismatch. Errors arrive as <code>error</code> and{" "}
          <code>error_description</code>.
        </li>
        <li>
          A code works once. A second exchange fails with <code>invalid_grant</code> and revokes the tokens the first one
          issued.
        </li>
        <li>
          The response has <code>access_token</code>, <code>expires_in</code>, <code>refresh_token</code>,{" "}
          <code>scope</code> and <code>id_token</code>.
        </li>
        <li>
          Refresh with <code>grant_type=refresh_token</code>. Refresh tokens rotate: use the new one each time. Reusing
          an old one revokes the whole grant, and the person has to sign in again.
        </li>
        <li>
          Single-page apps can call the token endpoint from the browser: it answers CORS requests from your registered
          redirect origins.
        </li>
      </ul>

      <h2 id="logout">Sign-out</h2>
      <p>
        Clearing your own session only signs the person out of your app. To end their platform session too, redirect to
        the end-session endpoint with <code>client_id</code>, a registered <code>post_logout_redirect_uri</code> and{" "}
        <code>id_token_hint</code>.
      </p>

      <h2 id="calling">Calling the API</h2>
      <CodeBlock title="Bearer token" code={`curl -s "${API_URL}/me" -H "Authorization: Bearer $ACCESS_TOKEN"`} />
      <p>
        Access tokens are signed JWTs (<code>typ: at+jwt</code>). The API checks every token it is given — even on public
        endpoints — and answers <code>401 invalid_token</code> for one that is expired, malformed or forged. An app-only
        token on an endpoint that acts for a person gets <code>403 requires_user</code>.
      </p>
    </DocsPage>
  );
}
