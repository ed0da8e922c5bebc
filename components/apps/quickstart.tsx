import { CodeBlock } from "@/components/ui/code-block";
import type { AppView } from "@/lib/schemas/apps";

/** Copy-paste snippets for the app's type, filled in with its own client ID and URLs. */
export function Quickstart({ app, issuer, apiUrl }: { app: AppView; issuer: string; apiUrl: string }) {
  if (app.type === "api") {
    const call = app.scopes.includes("svc:directory.read") && !app.scopes.includes("svc:chat.read")
      ? `${apiUrl}/users?limit=5`
      : `${apiUrl}/global-chat/messages?limit=5`;
    const tokenStep = `# Read the secret without echoing it or leaving it in your shell history.
read -rs -p "Client secret: " CLIENT_SECRET; echo

# 1. Exchange the client ID and secret for an access token (client credentials).
ACCESS_TOKEN=$(curl -s -X POST "${issuer}/protocol/openid-connect/token" \\
  -d grant_type=client_credentials \\
  -d client_id=${app.clientId} \\
  --data-urlencode "client_secret=$CLIENT_SECRET" | jq -r .access_token)

# 2. Call the API with the token. Reuse it until it is close to expiry (expires_in).
curl -s "${call}" \\
  -H "Authorization: Bearer $ACCESS_TOKEN"`;
    return (
      <div className="space-y-4">
        <p className="text-sm text-slate-600">
          An API key client acts as itself: it gets an app-only token with the client credentials grant. Tokens carry
          the scopes you registered{app.scopes.length ? ` (${app.scopes.join(", ")})` : ""}.
        </p>
        <CodeBlock title="Client credentials with curl" code={tokenStep} />
      </div>
    );
  }
  const redirectUri = app.redirectUris[0] ?? "https://app.example.com/callback";
  const logoutUri = app.postLogoutRedirectUris[0];
  const pkce = `import { createHash, randomBytes } from "node:crypto";

const issuer = "${issuer}";
const clientId = "${app.clientId}";
const redirectUri = "${redirectUri}";

// 1. Read the endpoints from the discovery document at run time.
const discovery = await (await fetch(\`\${issuer}/.well-known/openid-configuration\`)).json();

// 2. A fresh PKCE verifier and state per sign-in; keep both (e.g. in the session) until the callback.
const verifier = randomBytes(32).toString("base64url");
const challenge = createHash("sha256").update(verifier).digest("base64url");
const state = randomBytes(16).toString("base64url");

const authorize = new URL(discovery.authorization_endpoint);
authorize.search = new URLSearchParams({
  client_id: clientId,
  response_type: "code",
  redirect_uri: redirectUri,
  scope: "openid", // your registered svc: scopes are added automatically
  state,
  code_challenge: challenge,
  code_challenge_method: "S256",
}).toString();
// → redirect the browser to authorize.href

// 3. On the callback: compare state, then exchange the code (no client secret).
const callback = new URL(request.url);
if (callback.searchParams.get("state") !== state) throw new Error("state mismatch");
const tokens = await (await fetch(discovery.token_endpoint, {
  method: "POST",
  body: new URLSearchParams({
    grant_type: "authorization_code",
    client_id: clientId,
    code: callback.searchParams.get("code"),
    redirect_uri: redirectUri,
    code_verifier: verifier,
  }),
})).json();

// 4. Call the API as the person who signed in.
const me = await fetch("${apiUrl}/me", {
  headers: { Authorization: \`Bearer \${tokens.access_token}\` },
});`;
  const logout = `${issuer}/protocol/openid-connect/logout?client_id=${app.clientId}${logoutUri ? `&post_logout_redirect_uri=${encodeURIComponent(logoutUri)}` : ""}&id_token_hint=<id_token>`;
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-600">
        A login client is public: it never has a secret. People sign in on the platform&apos;s page and your app gets a
        code, which it exchanges with its PKCE verifier.
      </p>
      <CodeBlock title="Authorization code + PKCE (Node.js 20+)" language="js" code={pkce} />
      <CodeBlock title="Sign out (ends the platform session too)" code={logout} />
    </div>
  );
}
