/**
 * The quickstart snippets, from one place: the app page (components/apps/quickstart.tsx), the docs
 * (/docs/sdk) and tests/portal/quickstarts.test.ts, which runs every one of them against a real
 * server (bash, tsx, python3), so none can drift from the API. Each is filled with the app's own
 * client ID and URIs.
 *
 * API clients: client credentials then a first call (curl, the SDK, Python requests).
 * Login clients: authorization code + PKCE as a small terminal program — print the authorization URL,
 * read back the URL the browser was redirected to, check state, exchange the code, call GET /me
 * (curl + openssl, the SDK, Python authlib). In a web app the two halves are the sign-in and
 * callback routes (examples/signin-web).
 */
import { sandboxClientId } from "./schemas/sandboxes";

export type QuickstartLanguage = "curl" | "typescript" | "python";

export const QUICKSTART_LANGUAGES: { id: QuickstartLanguage; label: string; fence: string }[] = [
  { id: "curl", label: "curl", fence: "bash" },
  { id: "typescript", label: "TypeScript", fence: "ts" },
  { id: "python", label: "Python", fence: "python" },
];

export interface QuickstartApp {
  type: "api" | "login";
  clientId: string;
  scopes: string[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
}

export interface QuickstartSnippet {
  language: QuickstartLanguage;
  label: string;
  /** What the code block's title bar says. */
  title: string;
  fence: string;
  code: string;
}

export const PLACEHOLDER_REDIRECT_URI = "https://app.example.com/callback";

/** Which credentials a quickstart uses: the app's own, or its sandbox twin's. */
export type QuickstartWorld = "live" | "sandbox";

/**
 * The worlds an app page's quickstart offers, first the default: before approval only the
 * sandbox works (a pending or rejected app's live credentials get invalid_client); once approved,
 * both; a suspended app's sandbox is off too, so it keeps the live one it had.
 */
export function quickstartWorlds(status: "pending" | "approved" | "rejected" | "suspended"): QuickstartWorld[] {
  if (status === "approved") return ["live", "sandbox"];
  if (status === "suspended") return ["live"];
  return ["sandbox"];
}

/**
 * The app as its sandbox signs in (lib/services/sandboxes.ts findSandboxForSignIn): the `sbx_`
 * client ID and the current configuration, changes waiting for review included.
 */
export function sandboxQuickstartApp(
  app: QuickstartApp & { pendingChange?: { scopes?: string[]; redirectUris?: string[]; postLogoutRedirectUris?: string[] } | null },
): QuickstartApp {
  const pending = app.pendingChange ?? {};
  return {
    type: app.type,
    clientId: sandboxClientId(app.clientId),
    scopes: pending.scopes ?? app.scopes,
    redirectUris: pending.redirectUris ?? app.redirectUris,
    postLogoutRedirectUris: pending.postLogoutRedirectUris ?? app.postLogoutRedirectUris,
  };
}

/** Which first call an API client's snippets make: one its scopes allow. */
function firstApiCall(scopes: string[]): "chat" | "users" | "profile" {
  if (scopes.includes("svc:chat.read")) return "chat";
  if (scopes.includes("svc:directory.read")) return "users";
  return "profile";
}

export function quickstartSnippets(app: QuickstartApp, urls: { issuer: string; apiUrl: string }): QuickstartSnippet[] {
  const make = app.type === "api" ? apiSnippets : loginSnippets;
  const code = make(app, urls);
  return QUICKSTART_LANGUAGES.map(({ id, label, fence }) => ({
    language: id,
    label,
    fence,
    title: TITLES[app.type][id],
    code: code[id],
  }));
}

const TITLES: Record<QuickstartApp["type"], Record<QuickstartLanguage, string>> = {
  api: {
    curl: "Client credentials with curl",
    typescript: "Client credentials with the TypeScript SDK",
    python: "Client credentials with Python requests",
  },
  login: {
    curl: "Authorization code + PKCE with curl and openssl",
    typescript: "Authorization code + PKCE with the TypeScript SDK",
    python: "Authorization code + PKCE with Python Authlib",
  },
};

/** The SDK's install line: the tarball this platform serves, from `{APP_URL}/api/v1`. */
function sdkInstallLine(apiUrl: string): string {
  return `// npm install ${apiUrl.replace(/\/api\/v1\/?$/, "")}/sdk/latest.tgz   (or @social-dev-platform/sdk where your operator publishes it)`;
}

function apiSnippets(app: QuickstartApp, { issuer, apiUrl }: { issuer: string; apiUrl: string }): Record<QuickstartLanguage, string> {
  const call = firstApiCall(app.scopes);
  const curlUrl = call === "chat" ? `${apiUrl}/global-chat/messages?limit=5` : call === "users" ? `${apiUrl}/users?limit=5` : `${apiUrl}/users/alice`;
  const curl = `# Read the secret without echoing it or leaving it in your shell history.
read -rs -p "Client secret: " CLIENT_SECRET; echo

# 1. Exchange the client ID and secret for an access token (client credentials).
ACCESS_TOKEN=$(curl -s -X POST "${issuer}/protocol/openid-connect/token" \\
  -d grant_type=client_credentials \\
  -d client_id=${app.clientId} \\
  --data-urlencode "client_secret=$CLIENT_SECRET" | jq -r .access_token)

# 2. Call the API with the token. Reuse it until it is close to expiry (expires_in).
curl -s "${curlUrl}" \\
  -H "Authorization: Bearer $ACCESS_TOKEN"`;

  const tsCall =
    call === "chat"
      ? `const { data } = await client.GET("/global-chat/messages", { params: { query: { limit: 5 } } });
for (const message of data.messages) console.log(\`\${message.author.handle}: \${message.text}\`);`
      : call === "users"
        ? `let shown = 0;
for await (const user of client.users.list({ limit: 5 })) {
  console.log(\`\${user.handle} (\${user.display_name})\`);
  if (++shown === 5) break;
}`
        : `const profile = await client.users.get("alice");
console.log(\`\${profile.user.username}: \${profile.user.displayName}\`);`;
  const typescript = `${sdkInstallLine(apiUrl)}
import { clientCredentials, createClient, PlatformError } from "@social-dev-platform/sdk";

const client = createClient({
  baseUrl: "${apiUrl}",
  // Discovers the token endpoint, caches the token and renews it shortly before it expires.
  tokenProvider: clientCredentials({
    issuer: "${issuer}",
    clientId: "${app.clientId}",
    clientSecret: process.env.CLIENT_SECRET!, // from your secret store; never commit or log it
  }),
});

try {
  ${tsCall.split("\n").join("\n  ")}
} catch (error) {
  if (error instanceof PlatformError) console.error(error.status, error.code, error.message, error.requestId);
  throw error;
}`;

  const pyCall =
    call === "chat"
      ? `res = requests.get(f"{API}/global-chat/messages", params={"limit": 5}, headers=headers, timeout=10)
res.raise_for_status()
for message in res.json()["data"]["messages"]:
    print(f'{message["author"]["handle"]}: {message["text"]}')`
      : call === "users"
        ? `res = requests.get(f"{API}/users", params={"limit": 5}, headers=headers, timeout=10)
res.raise_for_status()
for user in res.json()["data"]["users"]:
    print(f'{user["handle"]} ({user["display_name"]})')`
        : `res = requests.get(f"{API}/users/alice", headers=headers, timeout=10)
res.raise_for_status()
profile = res.json()
print(f'{profile["user"]["username"]}: {profile["user"]["displayName"]}')`;
  const python = `# pip install requests
import os
import requests

ISSUER = "${issuer}"
API = "${apiUrl}"
CLIENT_ID = "${app.clientId}"
CLIENT_SECRET = os.environ["CLIENT_SECRET"]  # from your secret store; never commit or log it

# 1. The token endpoint comes from the discovery document.
discovery = requests.get(f"{ISSUER}/.well-known/openid-configuration", timeout=10).json()

# 2. Client credentials: one token, reused until it is close to expiry (expires_in).
res = requests.post(
    discovery["token_endpoint"],
    data={"grant_type": "client_credentials", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET},
    timeout=10,
)
res.raise_for_status()
headers = {"Authorization": f'Bearer {res.json()["access_token"]}'}

# 3. Call the API. Errors are {"error": {"code", "message"}}.
${pyCall}`;
  return { curl, typescript, python };
}

function loginSnippets(app: QuickstartApp, { issuer, apiUrl }: { issuer: string; apiUrl: string }): Record<QuickstartLanguage, string> {
  const redirectUri = app.redirectUris[0] ?? PLACEHOLDER_REDIRECT_URI;
  const logoutUri = app.postLogoutRedirectUris[0] ?? redirectUri;
  const curl = `# A terminal walk-through of what your app does. In a web app, steps 1-2 are your sign-in
# route and steps 3-4 your callback route.

# 1. A PKCE verifier, its S256 challenge (base64url of SHA-256) and a state, kept until the callback.
VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\\n')
CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
STATE=$(openssl rand -hex 16)

# 2. Open the authorization URL in a browser and sign in (your svc: scopes are added automatically).
echo "Open ${issuer}/protocol/openid-connect/auth?client_id=${app.clientId}&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(redirectUri)}&state=$STATE&code_challenge=$CHALLENGE&code_challenge_method=S256"

# 3. Back on the redirect URI: check state, take the code.
read -r -p "Paste the URL you were redirected to: " CALLBACK
case "$CALLBACK" in *"state=$STATE"*) ;; *) echo "state mismatch" >&2; exit 1 ;; esac
CODE=$(printf '%s' "$CALLBACK" | sed -n 's/.*[?&]code=\\([^&]*\\).*/\\1/p')

# 4. Exchange the code with the verifier (no client secret), then call the API as that person.
TOKENS=$(curl -s -X POST "${issuer}/protocol/openid-connect/token" \\
  -d grant_type=authorization_code \\
  -d client_id=${app.clientId} \\
  --data-urlencode "redirect_uri=${redirectUri}" \\
  --data-urlencode "code=$CODE" \\
  --data-urlencode "code_verifier=$VERIFIER")
ACCESS_TOKEN=$(printf '%s' "$TOKENS" | jq -r .access_token)
curl -s "${apiUrl}/me" -H "Authorization: Bearer $ACCESS_TOKEN"`;

  const typescript = `${sdkInstallLine(apiUrl)}
import { createInterface } from "node:readline/promises";
import { createClient, createLoginClient } from "@social-dev-platform/sdk";

const login = await createLoginClient({
  issuer: "${issuer}",
  clientId: "${app.clientId}",
  redirectUri: "${redirectUri}",
  postLogoutRedirectUri: "${logoutUri}",
});

// 1. Sign-in route: a fresh state and PKCE verifier (keep \`pending\` in the session), then redirect.
const { url, pending } = await login.startSignIn();
console.log(\`Open \${url.href}\`);

// 2. Callback route: checks state, exchanges the code with the verifier (no client secret).
const prompt = createInterface({ input: process.stdin, output: process.stdout });
const callback = await prompt.question("Paste the URL you were redirected to: ");
prompt.close();
const tokens = await login.finishSignIn(callback, pending);

// 3. Call the API as the person who signed in.
const client = createClient({ baseUrl: "${apiUrl}", token: tokens.accessToken });
const me = await client.me.get();
console.log(\`Signed in as \${me.user.username}\`);

// 4. Refresh (the refresh token rotates: keep the new one), and sign out of the platform too.
const refreshed = await login.refresh(tokens.refreshToken!);
console.log(\`Refreshed; expires in \${refreshed.expiresIn} s\`);
console.log(\`Sign out: \${login.logoutUrl({ idTokenHint: tokens.idToken }).href}\`);`;

  const python = `# pip install authlib requests
from urllib.parse import urlencode

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session

ISSUER = "${issuer}"
API = "${apiUrl}"
CLIENT_ID = "${app.clientId}"
REDIRECT_URI = "${redirectUri}"

discovery = requests.get(f"{ISSUER}/.well-known/openid-configuration", timeout=10).json()
# A public client: no secret, PKCE (S256) instead.
session = OAuth2Session(
    CLIENT_ID,
    redirect_uri=REDIRECT_URI,
    scope="openid",  # your registered svc: scopes are added automatically
    token_endpoint_auth_method="none",
    code_challenge_method="S256",
)

# 1. Sign-in route: keep state and code_verifier in the session, then redirect.
code_verifier = generate_token(48)
url, state = session.create_authorization_url(discovery["authorization_endpoint"], code_verifier=code_verifier)
print(f"Open {url}", flush=True)

# 2. Callback route: Authlib checks state, then exchanges the code with the verifier.
callback = input("Paste the URL you were redirected to: ")
tokens = session.fetch_token(
    discovery["token_endpoint"], authorization_response=callback, state=state, code_verifier=code_verifier
)

# 3. Call the API as the person who signed in (the session sends the bearer token).
me = session.get(f"{API}/me", timeout=10)
me.raise_for_status()
print(f'Signed in as {me.json()["user"]["username"]}')

# 4. Refresh (the refresh token rotates), and sign out of the platform too.
session.refresh_token(discovery["token_endpoint"])
logout = {"client_id": CLIENT_ID, "post_logout_redirect_uri": "${logoutUri}", "id_token_hint": tokens["id_token"]}
print(f'Sign out: {discovery["end_session_endpoint"]}?{urlencode(logout)}')`;
  return { curl, typescript, python };
}

/**
 * Receiving webhooks: a receiver on the SDK's verifyWebhook, and one in Python that
 * verifies the Standard Webhooks signature by hand (standard library only). Not tied to an app:
 * the secret comes from WEBHOOK_SECRET. tests/events/webhook-quickstarts.test.ts runs both (tsx,
 * python3) and posts signed, forged and replayed requests to them.
 */
export function webhookQuickstartSnippets(appUrl = "http://localhost:3000"): QuickstartSnippet[] {
  const typescript = `${sdkInstallLine(`${appUrl}/api/v1`)}
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook, WebhookVerificationError } from "@social-dev-platform/sdk";

// The endpoint's whsec_… secret (while rotating: old and new, separated by a space).
const secrets = (process.env.WEBHOOK_SECRET ?? "").split(" ");
const handled = new Set<string>(); // event ids already handled: keep them in your database

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    // The raw body, before any JSON parsing: the signature covers its exact bytes.
    const event = await verifyWebhook(Buffer.concat(chunks), req.headers, secrets);
    res.writeHead(204).end(); // answer at once (any 2xx), work afterwards
    if (handled.has(event.id)) return; // a retry or redelivery: same id
    handled.add(event.id);
    console.log(\`\${event.type} \${event.id}\`);
  } catch (error) {
    res.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
  }
});
server.listen(Number(process.env.PORT ?? 4100), "127.0.0.1", () => {
  console.log(\`Listening on http://127.0.0.1:\${(server.address() as AddressInfo).port}/\`);
});`;

  const python = `# Standard library only (or: pip install standardwebhooks, then Webhook(secret).verify(body, headers)).
import base64, hashlib, hmac, json, os, time
from http.server import BaseHTTPRequestHandler, HTTPServer

def verify_webhook(body: bytes, headers, secrets: list[str], tolerance: int = 300) -> dict:
    msg_id, timestamp, signatures = (headers.get(h) for h in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    if not (msg_id and timestamp and signatures) or abs(time.time() - int(timestamp)) > tolerance:
        raise ValueError("missing headers, or a timestamp too far from now (a replay)")
    signed = f"{msg_id}.{timestamp}.".encode() + body
    for secret in secrets:
        key = base64.b64decode(secret.removeprefix("whsec_"))
        expected = b"v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
        if any(hmac.compare_digest(s.encode(), expected) for s in signatures.split()):
            return json.loads(body)
    raise ValueError("no signature matches")

# The endpoint's whsec_… secret (while rotating: old and new, separated by a space).
SECRETS = os.environ["WEBHOOK_SECRET"].split()
handled = set()  # event ids already handled: keep them in your database

class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            event = verify_webhook(body, self.headers, SECRETS)
        except ValueError:
            self.send_response(400)
            self.end_headers()
            return
        self.send_response(204)  # answer at once (any 2xx), work afterwards
        self.end_headers()
        if event["id"] not in handled:  # a retry or redelivery carries the same id
            handled.add(event["id"])
            print(event["type"], event["id"], flush=True)

server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "4100"))), Receiver)
print(f"Listening on http://127.0.0.1:{server.server_port}/", flush=True)
server.serve_forever()`;

  return [
    { language: "typescript", label: "TypeScript", fence: "ts", title: "Receive webhooks with the TypeScript SDK", code: typescript },
    { language: "python", label: "Python", fence: "python", title: "Verify webhooks by hand in Python", code: python },
  ];
}

/**
 * DPoP (RFC 9449): an API client whose tokens are bound to a key it holds, with panva's oauth4webapi
 * (which makes the proofs and retries with the server's nonce). /docs/authentication shows it;
 * tests/portal/quickstarts.test.ts runs it against a real server, with an app that requires DPoP.
 */
export function dpopQuickstartSnippets(app: Pick<QuickstartApp, "clientId">, urls: { issuer: string; apiUrl: string }): QuickstartSnippet[] {
  const typescript = `// npm install oauth4webapi
import * as oauth from "oauth4webapi";

const issuer = new URL("${urls.issuer}");
// Plain http only for a platform on your own machine.
const options = issuer.protocol === "http:" ? { [oauth.allowInsecureRequests]: true } : {};
const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
const client: oauth.Client = { client_id: "${app.clientId}" };
const auth = oauth.ClientSecretPost(process.env.CLIENT_SECRET!);

// One key pair per running instance; the private key never leaves it (not extractable).
const DPoP = oauth.DPoP(client, await oauth.generateKeyPair("ES256"));

// A server that asks for its nonce (use_dpop_nonce) is asked again once: the handle kept the nonce.
async function withNonceRetry<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return attempt();
  }
}

const tokens = await withNonceRetry(async () =>
  oauth.processClientCredentialsResponse(as, client,
    await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams(), { ...options, DPoP })),
);
console.log(\`token_type: \${tokens.token_type}\`); // "dpop": useless without this instance's key

// Every call carries a fresh proof of its method and URL (oauth4webapi signs it).
const res = await withNonceRetry(() =>
  oauth.protectedResourceRequest(tokens.access_token, "GET", new URL("${urls.apiUrl}/global-chat/messages?limit=5"), new Headers(), null, { ...options, DPoP }),
);
// A refusal is 401 invalid_token; its WWW-Authenticate: DPoP error="…" says what was wrong with the proof.
if (!res.ok) throw new Error(\`\${res.status} \${res.headers.get("www-authenticate")} \${await res.text()}\`);
const { data } = (await res.json()) as { data: { messages: { text: string; author: { handle: string } }[] } };
for (const m of data.messages) console.log(\`\${m.author.handle}: \${m.text}\`);`;
  return [{ language: "typescript", label: "TypeScript", fence: "ts", title: "Client credentials and an API call with DPoP (oauth4webapi)", code: typescript }];
}

/** The shell line that makes a key pair for private_key_jwt: the private JWK for the app, the public JWK Set for the platform. */
export const KEY_PAIR_COMMAND = `node -e '
const { generateKeyPairSync, randomUUID } = require("node:crypto");
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const kid = randomUUID();
require("node:fs").writeFileSync("private-key.json", JSON.stringify({ ...privateKey.export({ format: "jwk" }), kid }), { mode: 0o600 });
console.log(JSON.stringify({ keys: [{ ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" }] }));
' > jwks.json   # jwks.json: paste it on the app page (Keys) or: npm run platform -- apps keys set <CLIENT_ID> --jwks-file jwks.json`;

/**
 * Keys instead of a secret (RFC 7523 private_key_jwt): an API client signs its token request with its
 * private key (WebCrypto, with oauth4webapi); the platform holds only the public keys.
 * /docs/authentication shows it; tests/portal/quickstarts.test.ts runs it against a real server.
 */
export function privateKeyJwtQuickstartSnippets(app: Pick<QuickstartApp, "clientId">, urls: { issuer: string; apiUrl: string }): QuickstartSnippet[] {
  const typescript = `// npm install oauth4webapi
import { readFileSync } from "node:fs";
import * as oauth from "oauth4webapi";

const issuer = new URL("${urls.issuer}");
// Plain http only for a platform on your own machine.
const options = issuer.protocol === "http:" ? { [oauth.allowInsecureRequests]: true } : {};
const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
const client: oauth.Client = { client_id: "${app.clientId}" };

// The private key never leaves the app: no secret is shared with the platform at all.
const { kid, ...jwk } = JSON.parse(readFileSync(process.env.PRIVATE_KEY_FILE ?? "private-key.json", "utf8"));
const key = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
// Each token request carries a fresh signed assertion (RFC 7523), good once and for a minute.
const auth = oauth.PrivateKeyJwt({ key, kid });

const tokens = await oauth.processClientCredentialsResponse(as, client,
  await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams(), options));

const res = await fetch("${urls.apiUrl}/global-chat/messages?limit=5", { headers: { authorization: \`Bearer \${tokens.access_token}\` } });
if (!res.ok) throw new Error(\`\${res.status} \${await res.text()}\`);
const { data } = (await res.json()) as { data: { messages: { text: string; author: { handle: string } }[] } };
for (const m of data.messages) console.log(\`\${m.author.handle}: \${m.text}\`);`;
  return [{ language: "typescript", label: "TypeScript", fence: "ts", title: "Client credentials with private_key_jwt (oauth4webapi)", code: typescript }];
}
