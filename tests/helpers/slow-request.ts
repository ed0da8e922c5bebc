import http from "node:http";

/** A request the server already has, its body still arriving (SIGTERM tests). */
export interface SlowRequest {
  /** Resolves once the server has read the request's headers (it answered 100 Continue). */
  accepted: Promise<void>;
  /** Sends the rest of the body. */
  finish(): void;
  response: Promise<{ status: number; body: string; connection: string | undefined }>;
}

/**
 * A `POST /api/v1/directory/resolve` that is in flight on the server: headers sent with
 * `Expect: 100-continue` (Node answers 100 once it has parsed them and handed the request to the
 * app), then half the body; the rest is sent on `finish()`. A new connection each (no agent), so a
 * cluster primary hands them to its workers in turn.
 */
export function slowResolve(baseUrl: string, token: string, handles: string[] = ["alice", "bob"]): SlowRequest {
  const body = JSON.stringify({ identifiers: handles.map((value) => ({ type: "handle", value })) });
  const half = Math.floor(body.length / 2);
  const req = http.request(`${baseUrl}/api/v1/directory/resolve`, {
    method: "POST",
    agent: false,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      expect: "100-continue",
    },
  });
  const accepted = new Promise<void>((resolve, reject) => {
    req.once("continue", () => {
      req.write(body.slice(0, half));
      resolve();
    });
    req.once("error", reject);
  });
  const response = new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, connection: res.headers.connection }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
  req.flushHeaders();
  return { accepted, finish: () => req.end(body.slice(half)), response };
}
