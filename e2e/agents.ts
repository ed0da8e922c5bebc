import { readFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { CALLBACK, server } from "./support";

/**
 * An AI agent's side for the journeys (issue 40): a web site serving agents' Client ID Metadata
 * Documents over https (the certificate e2e/global-setup.ts made and the server trusts). The MCP
 * client's side is tests/helpers/agents.ts.
 */
export interface AgentSite {
  origin: string;
  /** Serves a valid document at /agents/<path>/client.json and returns that URL, the agent's client ID. */
  publish(pathName: string, fields?: Record<string, unknown>): string;
  /** Serves an image at /agents/<path>/logo.png and returns its URL (a document's logo_uri). */
  publishLogo(pathName: string, image: Buffer): string;
  close(): Promise<void>;
}

export async function startAgentSite(): Promise<AgentSite> {
  const documents = new Map<string, { type: string; body: string | Buffer }>();
  const site = https.createServer(
    { key: readFileSync(path.join(server.agentTls, "key.pem")), cert: readFileSync(path.join(server.agentTls, "cert.pem")) },
    (req, res) => {
      const served = documents.get(new URL(req.url ?? "/", "https://localhost").pathname);
      if (!served) return res.writeHead(404).end();
      res.writeHead(200, { "content-type": served.type, "cache-control": "max-age=3600" }).end(served.body);
    },
  );
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const origin = `https://localhost:${(site.address() as AddressInfo).port}`;
  return {
    origin,
    publish(pathName, fields = {}) {
      const clientId = `${origin}/agents/${pathName}/client.json`;
      documents.set(new URL(clientId).pathname, { type: "application/json", body: JSON.stringify({
        client_id: clientId,
        client_name: "Research Assistant",
        redirect_uris: [CALLBACK],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        ...fields,
      }) });
      return clientId;
    },
    publishLogo(pathName, image) {
      const url = `${origin}/agents/${pathName}/logo.png`;
      documents.set(new URL(url).pathname, { type: "image/png", body: image });
      return url;
    },
    async close() {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    },
  };
}
