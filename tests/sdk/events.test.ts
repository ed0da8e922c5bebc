import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient, type WebhookEvent } from "../../sdk/src/index";
import { startApi, type Api } from "../api/support";

/**
 * The SDK's `client.events()` against a real server: events arrive as they happen, and a
 * dropped connection is resumed with Last-Event-ID without a gap or a repeat.
 */
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.stop();
});

it("yields chat events as they are posted and resumes after a dropped connection without a gap or a repeat", async () => {
  const token = await api.token({ scopes: ["svc:chat.read"] });
  let connections = 0;
  const resumedWith: (string | null)[] = [];
  let cut: (() => void) | undefined;
  // A fetch whose first stream the test cuts after one event, as a network would.
  const flaky: typeof fetch = async (input, init) => {
    connections++;
    resumedWith.push(new Headers(init?.headers).get("last-event-id"));
    const controller = new AbortController();
    init?.signal?.addEventListener("abort", () => controller.abort());
    const response = await fetch(input, { ...init, signal: controller.signal });
    if (connections === 1) cut = () => controller.abort();
    return response;
  };
  const stop = new AbortController();
  const client = createClient({ baseUrl: api.server.url, token, fetch: flaky });
  const stream = client.events({ types: ["chat.message.created"], signal: stop.signal });
  const received: WebhookEvent[] = [];
  const reading = (async () => {
    for await (const event of stream) received.push(event);
  })();
  const until = async (n: number) => {
    const deadline = Date.now() + 15_000;
    while (received.length < n) {
      if (Date.now() > deadline) throw new Error(`only ${received.length} events`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  await new Promise((r) => setTimeout(r, 300));
  const post = async (text: string) => {
    const author = await api.createUser();
    const writer = await api.token({ user: author.handle, scopes: ["svc:chat.write"] });
    expect((await api.call("/global-chat/messages", { method: "POST", token: writer, body: { text } })).status).toBe(201);
  };
  await post("sdk one");
  await until(1);
  cut!();
  await post("sdk two");
  await post("sdk three");
  await until(3);
  stop.abort();
  await reading;
  expect(received.map((e) => e.type === "chat.message.created" && e.data.text)).toEqual(["sdk one", "sdk two", "sdk three"]);
  expect(new Set(received.map((e) => e.id)).size).toBe(3);
  expect(connections).toBe(2);
  expect(resumedWith).toEqual([null, received[0]!.id]);
});
