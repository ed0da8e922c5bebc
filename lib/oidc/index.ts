import type { IncomingMessage, ServerResponse } from "node:http";

// TODO(issue 3): mount oidc-provider here. Placeholder so the server boots before the sign-in service exists.
export interface OidcService {
  handle(req: IncomingMessage, res: ServerResponse, issuerPath: string): Promise<void>;
  handleInteraction(req: IncomingMessage, res: ServerResponse, uid: string, action: "login" | "consent" | "abort"): Promise<void>;
  stop?(): Promise<void>;
}

export async function createOidc(): Promise<OidcService> {
  const notYet = async (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(503, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "temporarily_unavailable", error_description: "The sign-in service is not available." }));
  };
  return { handle: notYet, handleInteraction: notYet };
}
