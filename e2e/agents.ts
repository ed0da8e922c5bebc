import path from "node:path";
import { startAgentWebsite } from "../tests/helpers/agents";
import { CALLBACK, server } from "./support";

/**
 * An AI agent's side for the journeys (issue 40): tests/helpers/agents.ts's web site of agents'
 * Client ID Metadata Documents, over https with the certificate e2e/global-setup.ts made and the
 * server trusts. The MCP client's side is tests/helpers/agents.ts too.
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
  const site = await startAgentWebsite({ certFile: path.join(server.agentTls, "cert.pem"), keyFile: path.join(server.agentTls, "key.pem") });
  return {
    origin: site.origin,
    publish: (pathName, fields = {}) => site.publish(pathName, CALLBACK, { client_name: "Research Assistant", ...fields }),
    publishLogo(pathName, image) {
      const url = `${site.origin}/agents/${pathName}/logo.png`;
      site.documents.set(new URL(url).pathname, { headers: { "content-type": "image/png", "cache-control": "max-age=3600" }, body: image });
      return url;
    },
    close: () => site.close(),
  };
}
