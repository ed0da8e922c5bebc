/**
 * Baseline C: the ceiling for the token endpoint. oidc-provider (the version the app uses) on its
 * own, with its default in-memory adapter and one static confidential client, issuing
 * client-credentials access tokens as JWTs signed with the same algorithm as ours
 * (lib/oidc/keys.ts ACCESS_TOKEN_ALG, ES256), for the same audience shape and lifetime.
 *
 *   node bench/baselines/oidc-standalone.ts <port> <clientId> <clientSecret>
 *   POST /token  grant_type=client_credentials&client_id=…&client_secret=…
 */
import http from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";
import { ACCESS_TOKEN_ALG } from "../../lib/oidc/keys";

const port = Number(process.argv[2] ?? 0);
const clientId = process.argv[3] ?? "bench-client";
const clientSecret = process.argv[4] ?? "bench-secret";
const SCOPE = "svc:chat.read svc:directory.read";

async function signingKey(alg: "ES256" | "RS256") {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(privateKey)), alg, use: "sig", kid: `bench-${alg}` };
}

async function main(): Promise<void> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const issuer = `http://127.0.0.1:${actualPort}`;
  const audience = `${issuer}/api/v1`;

  // Mirrors lib/oidc/config.ts where it shapes the token: resource indicator → JWT for the API
  // audience, and no `sub` on client-credentials tokens.
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_post",
        scope: SCOPE,
      },
    ],
    jwks: { keys: [await signingKey(ACCESS_TOKEN_ALG), await signingKey("RS256")] },
    scopes: SCOPE.split(" "),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: SCOPE,
          audience,
          accessTokenTTL: 3600,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: ACCESS_TOKEN_ALG } },
        }),
      },
    },
    formats: {
      customizers: {
        async jwt(_ctx, token, jwt) {
          if (token.kind === "ClientCredentials") delete jwt.payload.sub;
        },
      },
    },
  });
  const callback = provider.callback();
  server.on("request", callback);
  server.keepAliveTimeout = 65_000;
  process.stdout.write(`listening on port ${actualPort}\n`);
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
