import type { Metadata } from "next";
import { DocsPage } from "@/components/docs/docs-page";
import { TableScroll } from "@/components/ui/table-scroll";
import { CodeBlock } from "@/components/ui/code-block";
import { env } from "@/lib/env";
import { dpopQuickstartSnippets, KEY_PAIR_COMMAND, privateKeyJwtQuickstartSnippets } from "@/lib/quickstarts";

export const metadata: Metadata = { title: "Authentication" };

export default function AuthenticationPage() {
  const { ISSUER, API_URL, DYNAMIC_REGISTRATION } = env();
  // The paths of lib/oidc/config.ts ROUTES under the issuer, in the discovery document's names
  // (not imported: config.ts pulls oidc-provider into this static page). The portal e2e test checks
  // that every endpoint discovery lists appears here.
  const endpoints: [name: string, discoveryField: string, url: string, what: string][] = [
    ["Discovery document", "", `${ISSUER}/.well-known/openid-configuration`, "Lists every endpoint below."],
    ["Authorization", "authorization_endpoint", `${ISSUER}/protocol/openid-connect/auth`, "Sign-in and consent (login clients)."],
    ["Token", "token_endpoint", `${ISSUER}/protocol/openid-connect/token`, "Codes, refresh tokens and client credentials in, tokens out."],
    ["End session (logout)", "end_session_endpoint", `${ISSUER}/protocol/openid-connect/logout`, "Ends the platform session and the app's grant."],
    ["Keys (JWKS)", "jwks_uri", `${ISSUER}/protocol/openid-connect/certs`, "Public keys that sign ID and access tokens."],
    ["User info", "userinfo_endpoint", `${ISSUER}/protocol/openid-connect/userinfo`, "The signed-in person's claims."],
    [
      "Token introspection",
      "introspection_endpoint",
      `${ISSUER}/protocol/openid-connect/token/introspect`,
      "RFC 7662: is a token active, and what it carries.",
    ],
    [
      "Token revocation",
      "revocation_endpoint",
      `${ISSUER}/protocol/openid-connect/revoke`,
      "RFC 7009: revoke a refresh token and its grant.",
    ],
    [
      "Device authorization",
      "device_authorization_endpoint",
      `${ISSUER}/protocol/openid-connect/auth/device`,
      "RFC 8628: device sign-in for TVs, CLIs and bots (login clients that allow it).",
    ],
    [
      "Pushed authorization requests",
      "pushed_authorization_request_endpoint",
      `${ISSUER}/protocol/openid-connect/ext/par/request`,
      "RFC 9126: post a sign-in request first, send the browser with its request_uri (login clients).",
    ],
  ];
  // Only where the operator turned it on (DYNAMIC_REGISTRATION=agents), as discovery lists it.
  if (DYNAMIC_REGISTRATION === "agents") {
    endpoints.push([
      "Client registration",
      "registration_endpoint",
      `${ISSUER}/clients-registrations/openid-connect`,
      "RFC 7591: older AI agents register themselves (see Connect an AI agent).",
    ]);
  }
  return (
    <DocsPage
      path="/docs/authentication"
      title="Authentication"
      lead="The platform runs an OpenID Connect provider. Apps get bearer access tokens from it and send them to the API."
    >
      <h2 id="endpoints">Endpoints</h2>
      <p>
        The issuer is <code>{ISSUER}</code>. Read the endpoints from the discovery document at run time rather than
        hard-coding them.
      </p>
      <TableScroll label="Endpoints">
        <table>
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              <th scope="col">URL</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map(([name, field, url, what]) => (
              <tr key={name}>
                <th scope="row" className="w-[38%] align-top">
                  {name}
                  {field ? (
                    <>
                      <br />
                      <code className="text-xs font-normal">{field}</code>
                    </>
                  ) : null}
                </th>
                <td>
                  <code className="break-all" data-testid="endpoint-url">
                    {url}
                  </code>
                  <br />
                  <span className="text-sm">{what}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <p>
        Introspection and revocation take the same client authentication as the token endpoint (a login client sends
        only its <code>client_id</code>). Revocation only accepts tokens issued to the calling client, and a login
        client can only introspect its own tokens. Introspection answers for refresh tokens; access tokens are
        self-contained JWTs that the API checks itself (signature, expiry and the revocations below), so introspecting
        one answers <code>unsupported_token_type</code>, and revoking one at the revocation endpoint does not end it:
        revoke the refresh token instead.
      </p>

      <h2 id="client-credentials">Client credentials (API key clients)</h2>
      <p>
        POST a form-encoded body to the token endpoint with <code>grant_type=client_credentials</code>, your{" "}
        <code>client_id</code> and <code>client_secret</code> (or send them with HTTP Basic authentication). The
        response has <code>access_token</code>, <code>expires_in</code> and <code>scope</code>; no refresh token.{" "}
        <code>invalid_client</code> means the app is not approved, is suspended, or the secret is not one of its active
        secrets (wrong, retired or rolled).
      </p>
      <p>
        Never log, commit or paste the secret into a shell command line. Rotate it from the app page: see{" "}
        <a href="#revocation">Revocation and rotation</a>.
      </p>
      <h3 id="sandbox" className="scroll-mt-24">Sandbox credentials</h3>
      <p>
        Every app also has a sandbox from the minute it is registered, before any review: its client ID is{" "}
        <code>sbx_</code> followed by the app&apos;s client ID, and an API key client&apos;s sandbox has its own secret
        (shown once when the app is created, and when it is rolled with{" "}
        <code>apps sandbox secret roll</code>). The same client credentials request with those returns a sandbox token;
        it carries your app&apos;s current scopes, including changes still waiting for review, and one extra claim,{" "}
        <code>&quot;sandbox&quot;: true</code>, so your code can tell the two apart. A sandbox token reads and writes
        only the sandbox&apos;s own generated people, chat and directory (built on its first use, about 50 people);
        it never sees a real person, and a live token never sees the sandbox. The sandbox has its own quota (600
        requests a minute) and works until the app is suspended.
      </p>

      <h3 id="private-key-jwt" className="scroll-mt-24">Keys instead of a client secret (private_key_jwt)</h3>
      <p>
        A shared secret can leak from wherever it is kept. Instead, an API client — or a login client that runs on a
        server — can hold a key pair and sign each token request with its private key (RFC 7523): the platform keeps only
        the public keys. Give them on the app page (<strong>Keys</strong>: a key set URL, <code>jwks_uri</code>, or pasted
        public keys) or with <code>npm run platform -- apps keys set &lt;CLIENT_ID&gt; --jwks-uri URL | --jwks-file FILE</code>.
        From then on the app holds no secret at all: a request with one gets <code>invalid_client</code>. A set with a
        private key in it is refused. Each assertion is good once, for a minute or as its <code>exp</code> says, and only for
        this platform&apos;s token endpoint. Keys at a <code>jwks_uri</code> (a public <code>https</code> URL) are fetched
        again every 10 minutes while the app signs in, so you rotate them there: publish the new key next to the old one,
        switch, then remove the old one. The app&apos;s sandbox keeps its own secret.
      </p>
      <CodeBlock title="Make a key pair (Node.js 20+)" code={KEY_PAIR_COMMAND} />
      {privateKeyJwtQuickstartSnippets({ clientId: "<CLIENT_ID>" }, { issuer: ISSUER, apiUrl: API_URL }).map((snippet) => (
        <CodeBlock key={snippet.language} title={snippet.title} code={snippet.code} />
      ))}

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
          an old one revokes the whole grant and voids the person&apos;s access tokens for your app at once; the person
          has to sign in again.
        </li>
        <li>
          Single-page apps can call the token endpoint from the browser: it answers CORS requests from your registered
          redirect origins.
        </li>
      </ul>

      <h3 id="par" className="scroll-mt-24">Pushed authorization requests (PAR)</h3>
      <p>
        Instead of putting the request in the browser&apos;s address bar, a login client can post it to the platform first
        (RFC 9126) and send the browser with only the <code>request_uri</code> it gets back: the parameters cannot be
        read or changed on the way, and the hosted pages work the same. An app can require it (<strong>Require pushed
        authorization requests</strong> on its settings page, or <code>--require-par</code> in the CLI): a plain
        authorization request is then refused with <code>invalid_request</code>.
      </p>
      <CodeBlock
        title="1. Push the request (the same parameters as above)"
        code={`curl -s -X POST "${ISSUER}/protocol/openid-connect/ext/par/request" \\
  -d client_id=<CLIENT_ID> \\
  -d response_type=code \\
  -d redirect_uri=<a registered redirect URI, verbatim> \\
  -d scope=openid \\
  -d state=<random> \\
  -d code_challenge=<BASE64URL(SHA-256(verifier))> \\
  -d code_challenge_method=S256
# → 201 {"request_uri":"urn:ietf:params:oauth:request_uri:…","expires_in":60}`}
      />
      <CodeBlock
        title="2. Redirect the browser within the minute"
        code={`GET ${ISSUER}/protocol/openid-connect/auth?client_id=<CLIENT_ID>&request_uri=<request_uri>`}
      />
      <p>
        The code comes back to the redirect URI as before, and is exchanged the same way. A <code>request_uri</code> works
        once.
      </p>

      <h2 id="device">Device sign-in (login clients)</h2>
      <p>
        For apps that cannot open a browser or receive a redirect — a TV, a command-line tool, a chat bot acting for its
        operator — the platform implements the OAuth device authorization grant (RFC 8628). The app shows a short code;
        the person opens the platform&apos;s device page on their phone or computer, enters the code, checks it, and signs
        in and consents on the usual pages. Meanwhile the app polls the token endpoint.
      </p>
      <p>
        Turn it on with <strong>Allow device sign-in</strong> on the app&apos;s registration or edit form (login clients
        only; on the CLI, <code>apps create … --device</code> or <code>apps update … --device</code>). On an approved app,
        turning it on is a change an admin reviews first, like new scopes; turning it off applies at once. Until then the
        device endpoint answers <code>unauthorized_client</code>.
      </p>
      <CodeBlock
        title="1. Ask for a code"
        code={`curl -s -X POST "${ISSUER}/protocol/openid-connect/auth/device" \
  -d client_id=<CLIENT_ID> \
  -d scope="openid profile"

{ "device_code": "…", "user_code": "WDJB-MJHT",
  "verification_uri": "${ISSUER}/device",
  "verification_uri_complete": "${ISSUER}/device?user_code=WDJB-MJHT",
  "expires_in": 600, "interval": 5 }`}
      />
      <p>
        Show <code>user_code</code> and <code>verification_uri</code> (or a QR code of{" "}
        <code>verification_uri_complete</code>, which fills the code in). Codes are eight letters from{" "}
        <code>BCDFGHJKLMNPQRSTVWXZ</code> shown as <code>XXXX-XXXX</code>; people may type them in any case, with or
        without the dash. The short address <code>{"/device"}</code> of this site leads to the same page.
      </p>
      <CodeBlock
        title="2. Poll for the tokens, every interval seconds"
        code={`curl -s -X POST "${ISSUER}/protocol/openid-connect/token" \
  -d grant_type=urn:ietf:params:oauth:grant-type:device_code \
  -d client_id=<CLIENT_ID> \
  -d device_code=<device_code>`}
      />
      <ul>
        <li>
          <code>400 authorization_pending</code>: the person has not finished yet; wait <code>interval</code> seconds
          and poll again.
        </li>
        <li>
          <code>400 slow_down</code>: you polled faster than <code>interval</code>; add 5 seconds to your interval from
          now on.
        </li>
        <li>
          <code>400 access_denied</code>: the person cancelled on the device page or denied consent. Stop polling.
        </li>
        <li>
          <code>400 expired_token</code>: the code is older than <code>expires_in</code> (10 minutes). Start again with a
          new code.
        </li>
        <li>
          <code>401 invalid_client</code>: the app is not approved (yet) or was suspended; its device codes stop working.
        </li>
        <li>
          Success is the same response as the code exchange: a user-delegated <code>access_token</code> with the
          app&apos;s <code>svc:</code> scopes (when <code>openid</code> was asked for), a rotating{" "}
          <code>refresh_token</code>, <code>id_token</code> and <code>scope</code>. A device code works once.
        </li>
        <li>
          <code>400 invalid_grant</code> (&quot;device code already consumed&quot;): the code was already exchanged.
          Replaying a used device code also <strong>revokes the tokens it produced</strong> (the access and refresh
          tokens of that sign-in), as a stolen code may be in other hands: keep polling only until the first success.
        </li>
      </ul>
      <p>
        The same rules as browser sign-in apply: the login throttle, disabled accounts, remembered consent. Wrong codes
        on the device page are throttled per network address.
      </p>

      <h2 id="second-factor">Second factor and step-up</h2>
      <p>
        People can set up an authenticator app (TOTP) and passkeys on their Account security page. The hosted sign-in
        then asks, after the password, for a code (or one of the ten single-use recovery codes that come with their
        first second factor, whether an app or a passkey) or their passkey; or the
        person signs in with a passkey alone, without typing a username (the login page&apos;s &quot;Sign in with a
        passkey&quot;, which needs JavaScript; the password form works without it). The ID token says how the person
        signed in:
      </p>
      <TableScroll label="amr and acr by sign-in">
        <table>
          <thead>
            <tr>
              <th scope="col">Sign-in</th>
              <th scope="col">
                <code>amr</code>
              </th>
              <th scope="col">
                <code>acr</code>
              </th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>Password only</td>
              <td>
                <code>[&quot;pwd&quot;]</code>
              </td>
              <td>absent</td>
            </tr>
            <tr>
              <td>Password and a code from the authenticator app</td>
              <td>
                <code>[&quot;pwd&quot;, &quot;otp&quot;, &quot;mfa&quot;]</code>
              </td>
              <td>
                <code>urn:social-dev-platform:mfa</code>
              </td>
            </tr>
            <tr>
              <td>Password and a recovery code</td>
              <td>
                <code>[&quot;pwd&quot;, &quot;mfa&quot;]</code> (two factors, but not the app&apos;s one-time password)
              </td>
              <td>
                <code>urn:social-dev-platform:mfa</code>
              </td>
            </tr>
            <tr>
              <td>Password and a passkey</td>
              <td>
                <code>[&quot;pwd&quot;, &quot;hwk&quot;, &quot;mfa&quot;]</code> (<code>swk</code> instead of{" "}
                <code>hwk</code> for a synced passkey)
              </td>
              <td>
                <code>urn:social-dev-platform:mfa</code>
              </td>
            </tr>
            <tr>
              <td>A passkey alone</td>
              <td>
                <code>[&quot;hwk&quot;, &quot;mfa&quot;]</code> or <code>[&quot;swk&quot;, &quot;mfa&quot;]</code>
              </td>
              <td>
                <code>urn:social-dev-platform:mfa</code>
              </td>
            </tr>
          </tbody>
        </table>
      </TableScroll>
      <p>
        <strong>Step-up.</strong> To require a second factor for a sensitive action, send{" "}
        <code>acr_values=urn:social-dev-platform:mfa</code> with the authorization request (the value is listed in
        discovery as <code>acr_values_supported</code>). A person whose platform session came from the password alone is
        asked for their second factor only (not the password again); someone already signed in with one goes straight
        through. Then check the ID token: <code>acr</code> is <code>urn:social-dev-platform:mfa</code> only when a second
        factor was used. A person without a second factor cannot give one: their ID token has no <code>acr</code>, and
        your app decides (for example, ask them to set one up on their Account security page). Refreshed ID tokens keep
        the <code>acr</code> and <code>amr</code> of the sign-in.
      </p>
      <p>
        <strong>Passkeys and <code>amr</code>.</strong> <code>hwk</code> (RFC 8176: a hardware-held key) names a passkey
        bound to one device, such as a security key or a laptop&apos;s secure chip; <code>swk</code> (a software-held
        key) names a passkey its provider syncs between devices (iCloud Keychain, Google Password Manager, a password
        manager), as the authenticator reports it. A passkey alone counts as two factors: the sign-in requires the
        authenticator to verify the person (PIN, fingerprint or face) before it signs, so something they have and
        something they know or are; the platform does not learn which unlock was used, so no <code>pin</code> or{" "}
        <code>fpt</code> is claimed. A passkey after the password is the second factor; user verification is not
        required there. Either way <code>acr</code> is <code>urn:social-dev-platform:mfa</code>, so a step-up request is
        satisfied by a passkey too. Do not rely on the order of the <code>amr</code> values; test for the ones you need.
      </p>
      <p>
        Wrong codes and failed passkey answers count toward the same sign-in throttle as wrong passwords, per account and
        network address.
      </p>

      <h2 id="languages">Language and theme of the hosted pages</h2>
      <p>
        The sign-in, second-factor, consent, device, sign-out and error pages speak English, German, Spanish and French
        (discovery lists them as <code>ui_locales_supported</code>: <code>en</code>, <code>de</code>, <code>es</code>,{" "}
        <code>fr</code>). Send the person&apos;s languages, best first, as <code>ui_locales</code> with the authorization
        request, for example <code>ui_locales=de-AT en</code>; a region is matched by its language. Without it the
        browser&apos;s <code>Accept-Language</code> decides. A language the person picks on the page&apos;s own language
        switch wins over both and is remembered in their browser. The pages follow the browser&apos;s light or dark
        setting; there is nothing to send for that.
      </p>

      <h2 id="logout">Sign-out</h2>
      <p>
        Clearing your own session only signs the person out of your app. To end their platform session too, redirect to
        the end-session endpoint with <code>client_id</code>, a <code>post_logout_redirect_uri</code> and{" "}
        <code>id_token_hint</code>. The <code>post_logout_redirect_uri</code> must match, verbatim, one of your
        registered redirect URIs or one of the optional post-logout redirect URIs. That also ends the person&apos;s
        grant of your app: its refresh token and every
        access token the person holds for your app stop working at once.
      </p>

      <h2 id="calling">Calling the API</h2>
      <CodeBlock title="Bearer token" code={`curl -s "${API_URL}/me" -H "Authorization: Bearer $ACCESS_TOKEN"`} />
      <p>
        Access tokens are signed JWTs (<code>typ: at+jwt</code>). The API checks every token it is given — even on public
        endpoints — and answers <code>401 invalid_token</code> for one that is expired, malformed, forged or{" "}
        <a href="#revocation">revoked</a>. An app-only
        token on an endpoint that acts for a person gets <code>403 requires_user</code>.
      </p>

      <h3 id="dpop" className="scroll-mt-24">Sender-constrained tokens (DPoP)</h3>
      <p>
        A stolen bearer token works from anywhere until it expires. With DPoP (RFC 9449) the app holds a key pair and
        signs a short proof for every request: a token request with a proof (client credentials, the authorization code,
        a refresh) gets <code>token_type: DPoP</code> and a token bound to that key (its <code>cnf.jkt</code>), and the
        API, the MCP server and the user info endpoint take it only as <code>Authorization: DPoP &lt;token&gt;</code>{" "}
        with a <code>DPoP</code> header proving this request — its method, its URL, the token&apos;s hash, made within the
        last five minutes and never used before (a proof works once, on every server). A login client&apos;s refresh token
        is bound too: it refreshes only with the same key. Refusals are <code>401 invalid_token</code> with{" "}
        <code>WWW-Authenticate: DPoP error=&quot;invalid_dpop_proof&quot;</code> (or <code>invalid_token</code>, for a
        bound token sent as <code>Bearer</code>) and the reason. An app can require DPoP (<strong>Require DPoP-bound
        tokens</strong> on its settings page, or <code>--require-dpop</code> in the CLI): a token request without a proof
        is then refused. Where the operator turned on server nonces (<code>DPOP_NONCE=1</code>), a proof without the
        server&apos;s nonce is answered <code>use_dpop_nonce</code> with a <code>DPoP-Nonce</code> header to use; panva&apos;s{" "}
        <code>oauth4webapi</code> keeps it, and the next attempt carries it.
      </p>
      {dpopQuickstartSnippets({ clientId: "<CLIENT_ID>" }, { issuer: ISSUER, apiUrl: API_URL }).map((snippet) => (
        <CodeBlock key={snippet.language} title={snippet.title} code={snippet.code} />
      ))}
      <p>
        A login client passes the same <code>{"{ DPoP }"}</code> option to <code>authorizationCodeGrantRequest</code>,{" "}
        <code>refreshTokenGrantRequest</code> and <code>userInfoRequest</code>.
      </p>

      <h2 id="revocation">Revocation and rotation</h2>
      <p>
        An access token is valid until <code>expires_in</code> seconds after it was issued, unless one of the events below
        voids it first. Voiding takes effect at once, on every server: the next API call with the token answers{" "}
        <code>401 invalid_token</code>, exactly like an expired token, and so does the user info endpoint. Get a new token
        (client credentials) or send the person through sign-in again.
      </p>

      <h3 id="secret-rotation" className="scroll-mt-24">Rotating a client secret</h3>
      <p>
        An API client can have two active secrets at a time, and the token endpoint accepts either. The app page shows
        each secret&apos;s last four characters, its id, when it was created and when it last got a token — never the
        value, which is shown once, when it is created.
      </p>
      <TableScroll label="Rotating a client secret">
        <table>
          <thead>
            <tr>
              <th scope="col">Action</th>
              <th scope="col">Effect</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row" className="align-top">Add a second secret</th>
              <td>
                A new secret, shown once; the existing one keeps working. Not possible while two are active. No access token
                changes.
              </td>
            </tr>
            <tr>
              <th scope="row" className="align-top">Retire a secret</th>
              <td>
                Token requests with it fail with <code>invalid_client</code> at once. Access tokens already issued with it
                keep working until they expire. The only active secret cannot be retired.
              </td>
            </tr>
            <tr>
              <th scope="row" className="align-top">Roll (compromise)</th>
              <td>
                One new secret, shown once; every other secret stops working immediately (<code>invalid_client</code>), and
                every access token of the app is void at once (<code>401 invalid_token</code>).
              </td>
            </tr>
          </tbody>
        </table>
      </TableScroll>
      <p>To rotate without downtime:</p>
      <ol>
        <li>Add a second secret on the app page and copy it.</li>
        <li>Deploy it everywhere the app runs. Both secrets work meanwhile.</li>
        <li>Once the old secret&apos;s &ldquo;last used&rdquo; time stops changing, retire it.</li>
      </ol>
      <p>
        Roll only when a secret has leaked: anything still using an old secret fails with <code>invalid_client</code> until
        you deploy the new one.
      </p>

      <h3 id="token-revocation" className="scroll-mt-24">What else voids access tokens</h3>
      <TableScroll label="What voids access tokens">
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Effect</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row" className="align-top">An admin suspends the app</th>
              <td>
                Token requests fail with <code>invalid_client</code>; every access and refresh token of the app is void at
                once (<code>401 invalid_token</code>). Reinstating does not revive them: people and API clients must get new
                tokens.
              </td>
            </tr>
            <tr>
              <th scope="row" className="align-top">The app is deleted</th>
              <td>
                Every access token, refresh token and grant of the app is revoked at once (<code>401 invalid_token</code>).
              </td>
            </tr>
            <tr>
              <th scope="row" className="align-top">An admin disables the person&apos;s account</th>
              <td>
                The person cannot sign in or refresh tokens, and every API call with their access tokens answers{" "}
                <code>403 forbidden</code> at once (user info: <code>401 invalid_token</code>). Their tokens are not deleted:
                enabling the account makes the unexpired ones work again.
              </td>
            </tr>
            <tr>
              <th scope="row" className="align-top">The person revokes your app&apos;s access</th>
              <td>
                On their Connected apps page (avatar menu, or an admin for them): their consent, grant and refresh tokens for your app are deleted, and their access
                tokens for your app are void at once (<code>401 invalid_token</code>). The next sign-in asks for consent
                again.
              </td>
            </tr>
            <tr>
              <th scope="row" className="align-top">A refresh token is used twice</th>
              <td>
                The second use fails with <code>invalid_grant</code>, the grant is revoked, and the person&apos;s access tokens
                for your app are void at once (<code>401 invalid_token</code>).
              </td>
            </tr>
            <tr>
              <th scope="row" className="align-top">The person signs out through the end-session endpoint</th>
              <td>
                Their grant of your app ends (and, when they end the platform session, the grants of every app they signed
                in to in it): its refresh token fails with <code>invalid_grant</code>, and their access tokens for that app
                are void at once (<code>401 invalid_token</code>).
              </td>
            </tr>
            <tr>
              <th scope="row" className="align-top">A refresh token is revoked at the revocation endpoint</th>
              <td>
                Its grant is revoked with it, and the person&apos;s access tokens for your app are void at once{" "}
                (<code>401 invalid_token</code>).
              </td>
            </tr>
          </tbody>
        </table>
      </TableScroll>
      <p>
        Nothing else ends an access token early: otherwise it is valid until <code>expires_in</code>. Handle{" "}
        <code>401 invalid_token</code> on any call by getting a new token, not by retrying the same one.
      </p>
    </DocsPage>
  );
}
