import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server";

describe("the real server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ next: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("serves the landing page at /", async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Build on the platform");
  });

  it("answers unknown API paths with the error envelope", async () => {
    const res = await fetch(`${server.apiUrl}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "not_found", message: expect.any(String) } });
  });

  it("serves the generated avatars and chat media the API links to", async () => {
    for (const path of ["/avatars/alice.svg", "/media/chat/street-food-3.jpg", "/media/chat/thumbs/street-food-3.jpg"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toContain("image/svg+xml");
    }
    expect((await fetch(`${server.url}/media/chat/../../etc/passwd`)).status).toBe(404);
  });

  it("serves pages without loading next.config.ts: no SWC binding mapped into the process (issue 24)", async () => {
    // Next transpiles a TypeScript config with its native SWC binding (~24 MB of RSS); a production
    // start takes the config `next build` serialized instead (lib/server/build.ts applyBuiltNextConfig).
    expect((await fetch(`${server.url}/docs`)).status).toBe(200);
    const maps = await readFile(`/proc/${server.process.pid}/maps`, "utf8");
    const native = [...new Set(maps.split("\n").map((line) => line.split(/\s+/)[5] ?? "").filter((file) => file.endsWith(".node")))];
    expect(native.filter((file) => /swc/i.test(file))).toEqual([]);
  });

  it("prints the URLs on start", () => {
    expect(server.logs.join("\n")).toContain(`Issuer:      ${server.issuer}`);
  });

  it("exits 0 on SIGTERM", async () => {
    expect(await server.stop()).toBe(0);
  });
});
