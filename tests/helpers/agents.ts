import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { AddClientAuthentication, OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * What an MCP client keeps between the two halves of an authorization (issue 40): an
 * OAuthClientProvider in memory for the official SDK's `auth()`, whose client ID is the URL of its
 * Client ID Metadata Document, or none (`undefined`): then `auth()` registers it (RFC 7591) and
 * keeps the client ID it was given. `authorizationUrl` is where `auth()` sent the person.
 */
export class TestAgent implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  /** Set for an agent that signs its token requests (private_key_jwt); unset, it is a public client. */
  addClientAuthentication?: AddClientAuthentication;
  #info: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = "";
  constructor(
    readonly clientMetadataUrl: string | undefined,
    readonly redirectUrl: string,
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Test agent", redirect_uris: [this.redirectUrl], token_endpoint_auth_method: "none" };
  }
  clientInformation() {
    return this.#info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#info = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

/** An answer of the agents' web site: a document, a key set, a logo, a redirect. */
export interface Served {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

/**
 * The agents' side on the web (issue 40): an https server with a self-signed certificate for
 * localhost, serving `documents` (path → answer, set per test). The platform trusts it when started
 * with NODE_EXTRA_CA_CERTS=certFile and CLIENT_METADATA_ALLOW_PRIVATE=1.
 */
export interface AgentWebsite {
  origin: string;
  certFile: string;
  documents: Map<string, Served>;
  /** Serves a valid Client ID Metadata Document for `name` (with `extra` fields) and returns its URL, the client ID. */
  publish(name: string, redirectUri: string, extra?: Record<string, unknown>, headers?: Record<string, string>): string;
  /** Counts the fetches of what is served at `url` from now on: returns the count so far. */
  countFetches(url: string): () => number;
  close(): Promise<void>;
}

/** A self-signed certificate for localhost (openssl), in a new temporary directory; remove `dir` when done. */
export function localhostCertificate(): { dir: string; certFile: string; keyFile: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tls-"));
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=localhost",
      "-addext", "subjectAltName=DNS:localhost", "-keyout", keyFile, "-out", certFile],
    { stdio: "ignore" },
  );
  return { dir, certFile, keyFile };
}

/** `tls`: a certificate the server under test already trusts; without it, a new one (its `certFile` to trust). */
export async function startAgentWebsite(tls?: { certFile: string; keyFile: string }): Promise<AgentWebsite> {
  const { dir, certFile, keyFile } = tls ? { dir: null, ...tls } : localhostCertificate();
  const documents = new Map<string, Served>();
  const server = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
    const served = documents.get(new URL(req.url ?? "/", "https://localhost").pathname);
    if (!served) return res.writeHead(404).end("not here");
    res.writeHead(served.status ?? 200, served.headers ?? { "content-type": "application/json" }).end(served.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    certFile,
    documents,
    publish(name, redirectUri, extra = {}, headers = {}) {
      const clientId = `${origin}/agents/${name}/client.json`;
      documents.set(new URL(clientId).pathname, {
        headers: { "content-type": "application/json", "cache-control": "max-age=3600", ...headers },
        body: JSON.stringify({
          client_id: clientId,
          client_name: `Agent ${name}`,
          client_uri: `${origin}/agents/${name}`,
          redirect_uris: [redirectUri],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
          ...extra,
        }),
      });
      return clientId;
    },
    countFetches(url) {
      const pathname = new URL(url).pathname;
      const served = documents.get(pathname)!;
      let fetches = 0;
      documents.set(pathname, {
        ...served,
        get body() {
          fetches++;
          return served.body;
        },
      });
      return () => fetches;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
