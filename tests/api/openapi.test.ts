import http from "node:http";
import type { AddressInfo } from "node:net";
import Ajv2020 from "ajv/dist/2020.js";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_EXAMPLES } from "../../lib/schemas/event-catalog";
import { EVENT_TYPES } from "../../lib/schemas/events";
import { runCli } from "../helpers/cli";
import { SPEC_ERROR_CODES, startApi, type Api, type ApiResult } from "./support";

/**
 * GET /api/v1/openapi.json: complete (every SPEC endpoint, parameter, error code, security scheme)
 * and true: real responses of every endpoint validate against it, with undocumented fields refused.
 */
let api: Api;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is arbitrary JSON
let doc: any;

const SPEC_ENDPOINTS = [
  ["get", "/users/{username}", null],
  ["get", "/me", null],
  ["get", "/me/stats", "svc:stats.read"],
  ["get", "/me/notifications", "svc:notifications.read"],
  ["get", "/me/beetle", "svc:beetle.read"],
  ["get", "/me/beetle/cards", "svc:beetle.read"],
  ["post", "/users/{handle}/poke", "svc:pokes.write"],
  ["get", "/global-chat/messages", "svc:chat.read"],
  ["post", "/global-chat/messages", "svc:chat.write"],
  ["post", "/directory/resolve", "svc:directory.read"],
  ["get", "/users", "svc:directory.read"],
] as const;

// Webhook receivers on 127.0.0.1 (the webhooks section is checked against real deliveries).
const ENV = { WEBHOOKS_ALLOW_PRIVATE: "1" };

beforeAll(async () => {
  api = await startApi({ env: ENV });
  const res = await api.call("/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await api?.stop();
});

/** A copy where every object schema with listed properties refuses unlisted ones. */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (node && typeof node === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([pk, pv]) => [pk, closeObjects(pv)])) : closeObjects(v);
    if (out.type === "object" && out.properties && !("additionalProperties" in out)) out.additionalProperties = false;
    return out;
  }
  return node;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

function templateFor(method: string, path: string): string {
  for (const template of Object.keys(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);
    if (pattern.test(path) && doc.paths[template][method]) return template;
  }
  throw new Error(`no documented operation for ${method} ${path}`);
}

/** Validates a real response against the document; returns the operation's template. */
function expectDocumented(method: string, path: string, res: ApiResult): void {
  const template = templateFor(method, path.split("?")[0]!);
  const op = doc.paths[template][method];
  const response = op.responses[String(res.status)];
  expect(response, `${method} ${template} does not document ${res.status}: ${res.text.slice(0, 200)}`).toBeDefined();
  const key = `${method} ${template} ${res.status}`;
  let validate = validators.get(key);
  if (!validate) {
    const schema = closeObjects({ ...response.content["application/json"].schema, components: doc.components });
    validate = ajv.compile(schema as object);
    validators.set(key, validate);
  }
  const ok = validate(res.body);
  expect(ok, `${key}: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${res.text.slice(0, 300)}`).toBe(true);
  if (res.status === 429) expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
}

async function check(method: "get" | "post", path: string, init: Parameters<Api["call"]>[1] = {}): Promise<ApiResult> {
  const res = await api.call(path, { ...init, method: method.toUpperCase() });
  expectDocumented(method, path, res);
  return res;
}

describe("the document", () => {
  it("is public OpenAPI 3.1 with the API URL as server", async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers).toEqual([{ url: api.server.apiUrl }]);
    expect(doc.info.title).toBeTruthy();
    const res = await fetch(api.url("/openapi.json"), { headers: { authorization: "Bearer garbage" } });
    expect(res.status).toBe(200);
  });

  it("documents exactly the eleven SPEC endpoints and the event stream (issue 25)", () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
    expect(operations.sort()).toEqual([...SPEC_ENDPOINTS.map(([m, p]) => `${m} ${p}`), "get /events"].sort());
    expect(Object.keys(doc.paths["/events"].get.responses["200"].content)).toEqual(["text/event-stream"]);
  });

  it("documents OAuth2 client credentials and authorization code flows with the issuer's endpoints and the svc scopes", () => {
    const schemes = doc.components.securitySchemes;
    const token = `${api.server.issuer}/protocol/openid-connect/token`;
    expect(schemes.apiClient.flows.clientCredentials.tokenUrl).toBe(token);
    expect(schemes.loginClient.flows.authorizationCode.tokenUrl).toBe(token);
    expect(schemes.loginClient.flows.authorizationCode.authorizationUrl).toBe(`${api.server.issuer}/protocol/openid-connect/auth`);
    for (const [, , scope] of SPEC_ENDPOINTS) if (scope) expect(schemes.loginClient.flows.authorizationCode.scopes).toHaveProperty(scope);
    expect(Object.keys(schemes.apiClient.flows.clientCredentials.scopes).sort()).toEqual(["svc:chat.read", "svc:directory.read"]);
  });

  it("states each endpoint's scope and token kind in its security requirement", () => {
    for (const [method, path, scope] of SPEC_ENDPOINTS) {
      const security = doc.paths[path][method].security as Record<string, string[]>[];
      if (path === "/users/{username}") expect(security).toContainEqual({});
      if (scope) for (const req of security) for (const scopes of Object.values(req)) expect(scopes).toEqual([scope]);
      const appOnly = security.some((r) => "apiClient" in r);
      expect(appOnly, `${method} ${path}`).toBe(["/global-chat/messages", "/directory/resolve", "/users", "/users/{username}"].includes(path) && !(method === "post" && path === "/global-chat/messages"));
    }
  });

  it("documents parameters and request bodies", () => {
    const params = (m: string, p: string) => (doc.paths[p][m].parameters ?? []).map((x: { name: string; in: string }) => `${x.in}:${x.name}`).sort();
    expect(params("get", "/users/{username}")).toEqual(["path:username"]);
    // The two writes that honour Idempotency-Key say so, with the replay header on success.
    expect(params("post", "/users/{handle}/poke")).toEqual(["header:Idempotency-Key", "path:handle"]);
    expect(params("post", "/global-chat/messages")).toEqual(["header:Idempotency-Key"]);
    for (const [p, status] of [["/users/{handle}/poke", "200"], ["/global-chat/messages", "201"]] as const) {
      expect(Object.keys(doc.paths[p].post.responses[status].headers ?? {})).toEqual(["Idempotent-Replayed"]);
      expect(doc.paths[p].post.responses["409"].content["application/json"].schema.properties.error.properties.code.enum).toEqual(["idempotency_key_in_use"]);
      expect(doc.paths[p].post.responses["422"].content["application/json"].schema.properties.error.properties.code.enum).toEqual(["idempotency_key_reused"]);
    }
    expect(params("get", "/me/notifications")).toEqual(["query:limit", "query:page"]);
    expect(params("get", "/global-chat/messages")).toEqual(["query:before", "query:limit"]);
    expect(params("get", "/users")).toEqual(["query:cursor", "query:limit"]);
    expect(doc.paths["/global-chat/messages"].post.requestBody.content["application/json"].schema).toBeDefined();
    expect(doc.paths["/directory/resolve"].post.requestBody.content["application/json"].schema).toBeDefined();
  });

  it("documents every SPEC error code somewhere, and only SPEC codes", () => {
    const seen = new Set<string>();
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops as Record<string, { responses: Record<string, { content?: Record<string, { schema: { properties: { error: { properties: { code: { enum: string[] } } } } } }> }> }>)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          for (const code of response.content!["application/json"]!.schema.properties.error.properties.code.enum) {
            expect(SPEC_ERROR_CODES.has(code)).toBe(true);
            seen.add(code);
          }
        }
      }
    }
    // not_found for unknown paths and method_not_allowed are not per operation; the description lists them.
    for (const code of SPEC_ERROR_CODES) if (code !== "method_not_allowed") expect(seen, code).toContain(code);
    expect(doc.info.description).toContain("method_not_allowed");
    expect(doc.paths["/users/{handle}/poke"].post.responses["429"].content["application/json"].schema.properties.error.properties).toHaveProperty("next_allowed_at");
    expect(doc.paths["/global-chat/messages"].post.responses["413"]).toBeDefined();
  });

  it("documents the shapes SPEC leaves open", () => {
    const schemas = doc.components.schemas;
    for (const name of ["BeetleState", "BeetleCard", "Notification", "AccountStats", "StatsMembers", "AchievementContext", "ViewerContext", "ChatMedia"]) {
      expect(schemas, name).toHaveProperty(name);
    }
    expect(schemas.Notification.properties.type.enum).toEqual(["poke", "friend_request", "achievement", "guild_invite", "mention", "system", "app_review"]);
  });
});

describe("real responses match the document", () => {
  it("(the check itself refuses undocumented fields, missing fields and wrong types)", async () => {
    const real = await api.call("/users/alice");
    const variants = [
      { ...real.body, surprise: 1 },
      { ...real.body, user: { ...real.body.user, friendCount: "12" } },
      { ...real.body, viewerContext: {} },
      { ...real.body, user: { ...real.body.user, secret: "x" } },
    ];
    for (const body of variants) {
      expect(() => expectDocumented("get", "/users/alice", { ...real, body })).toThrow();
    }
    expect(() => expectDocumented("get", "/users/alice", { ...real, status: 418 })).toThrow();
  });

  it("profiles, anonymous and personalized, and GET /me", async () => {
    await check("get", "/users/alice");
    await check("get", "/users/bob", { token: await api.token({ user: "alice" }) });
    await check("get", "/users/nobody-at-all");
    await check("get", "/users/alice", { token: "garbage" });
    await check("get", "/me", { token: await api.token({ user: "alice" }) });
    await check("get", "/me", { token: await api.token({ user: "bob", scopes: ["openid"] }) });
    await check("get", "/me", { token: await api.token({ scopes: ["svc:chat.read"] }) });
    await check("get", "/me");
  });

  it("the /me resources of several seeded users", async () => {
    for (const handle of ["alice", "bob", "carol"]) {
      const token = await api.token({ user: handle });
      await check("get", "/me/stats", { token });
      await check("get", "/me/beetle", { token });
      await check("get", "/me/beetle/cards", { token });
      for (let page = 1; page <= 4; page++) await check("get", `/me/notifications?limit=10&page=${page}`, { token });
    }
    await check("get", "/me/stats", { token: await api.token({ user: "alice", scopes: ["svc:chat.read"] }) });
  });

  it("pokes: success, cooldown, self, unknown", async () => {
    const caller = await api.createUser();
    const target = await api.createUser();
    const token = await api.token({ user: caller.handle });
    await check("post", `/users/${target.handle}/poke`, { token });
    await check("post", `/users/${target.handle}/poke`, { token });
    await check("post", `/users/${caller.handle}/poke`, { token });
    await check("post", "/users/no-one-here/poke", { token });
  });

  it("every page of the seeded global chat, and posting", async () => {
    const reader = await api.token({ scopes: ["svc:chat.read"] });
    let cursor = "";
    for (let i = 0; i < 50; i++) {
      const res = await check("get", `/global-chat/messages?limit=100${cursor ? `&before=${cursor}` : ""}`, { token: reader });
      if (!res.body.data.has_more) break;
      cursor = res.body.data.next_cursor;
    }
    await check("get", "/global-chat/messages?limit=0", { token: reader });
    const user = await api.createUser();
    const token = await api.token({ user: user.handle });
    await check("post", "/global-chat/messages", { token, body: { text: "documented" } });
    await check("post", "/global-chat/messages", { token, body: { text: "too fast" } });
    await check("post", "/global-chat/messages", { token, body: { text: "x", reply_to_id: "123456789012" } });
    await check("post", "/global-chat/messages", { token, body: { text: 5 } });
    await check("post", "/global-chat/messages", { token: await api.token({ user: "mallory" }), body: { text: "muted" } });
  });

  it("the directory: resolve and every page of GET /users", async () => {
    const token = await api.token({ scopes: ["svc:directory.read"] });
    await check("post", "/directory/resolve", {
      token,
      body: { identifiers: [{ type: "handle", value: "alice" }, { type: "x_handle", value: "nope" }, { type: "codehost", value: "bob-okafor" }] },
    });
    await check("post", "/directory/resolve", { token, body: { identifiers: [] } });
    let cursor: string | null = null;
    do {
      const res: ApiResult = await check("get", `/users?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { token });
      cursor = res.body.data.next_cursor;
    } while (cursor);
    await check("get", "/users?cursor=bad", { token });
    await check("get", "/users");
  });
});

/** A copy with every `$ref` to a component inlined and each `allOf` of objects merged into one object. */
function flatten(node: unknown, components: { schemas: Record<string, unknown> }): unknown {
  if (Array.isArray(node)) return node.map((n) => flatten(n, components));
  if (!node || typeof node !== "object") return node;
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === "string") return flatten(components.schemas[obj.$ref.replace("#/components/schemas/", "")], components);
  const out = Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([pk, pv]) => [pk, flatten(pv, components)])) : flatten(v, components)]));
  if (Array.isArray(out.allOf)) {
    const parts = out.allOf as { type?: string; properties?: object; required?: string[] }[];
    if (parts.every((p) => p.type === "object")) {
      const { allOf: _merged, ...rest } = out;
      return {
        ...rest,
        type: "object",
        properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
        required: parts.flatMap((p) => p.required ?? []),
      };
    }
  }
  return out;
}

describe("the webhooks section (issue 25)", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is arbitrary JSON
  const operation = (type: string): any => doc.webhooks?.[type]?.post;
  const bodyValidators = new Map<string, ReturnType<typeof ajv.compile>>();
  /** The documented body schema of `type`, closed: undocumented fields are refused. */
  function bodyValidator(type: string) {
    let validate = bodyValidators.get(type);
    if (!validate) {
      validate = ajv.compile(closeObjects(flatten(operation(type).requestBody.content["application/json"].schema, doc.components)) as object);
      bodyValidators.set(type, validate);
    }
    return validate;
  }
  function expectBody(type: string, body: unknown): void {
    const validate = bodyValidator(type);
    expect(validate(body), `${type}: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${JSON.stringify(body).slice(0, 300)}`).toBe(true);
  }
  function expectHeaders(type: string, headers: Record<string, string | undefined>): void {
    const params = operation(type).parameters as { name: string; in: string; required: boolean; schema: object }[];
    for (const param of params.filter((p) => p.in === "header")) {
      const value = headers[param.name];
      expect(param.required && value === undefined, `${type}: header ${param.name} missing`).toBe(false);
      const validate = ajv.compile(param.schema);
      expect(validate(value), `${type}: header ${param.name}: ${value}`).toBe(true);
    }
  }

  it("has one webhook per event type, with the Standard Webhooks headers and the 2xx that acknowledges it", () => {
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const op = operation(type);
      expect(op, type).toBeDefined();
      const headers = (op.parameters as { name: string; in: string; required: boolean }[]).filter((p) => p.in === "header");
      expect(headers.map((h) => [h.name, h.required])).toEqual([
        ["webhook-id", true],
        ["webhook-timestamp", true],
        ["webhook-signature", true],
      ]);
      expect(op.requestBody.required).toBe(true);
      expect(op.responses).toHaveProperty("2XX");
      expect(op.responses).toHaveProperty("410");
      expect(op.description).toContain("Received by:");
    }
    // The stream and the webhooks are documented apart from the eleven SPEC paths (checked above).
    expect(doc.info.description).toContain("webhooks");
  });

  it("publishes each type's example, which its schema accepts; a wrong type, a missing or an extra field is refused", () => {
    for (const type of EVENT_TYPES) {
      const example = operation(type).requestBody.content["application/json"].example;
      expect(example, type).toEqual(EVENT_EXAMPLES[type]);
      expectBody(type, example);
      const validate = bodyValidator(type);
      expect(validate({ ...example, type: type === "ping" ? "chat.message.created" : "ping" }), `${type}: another type`).toBe(false);
      expect(validate({ ...example, id: "evt_1" }), `${type}: a malformed id`).toBe(false);
      const { data: _data, ...withoutData } = example;
      expect(validate(withoutData), `${type}: no data`).toBe(false);
      const required = Object.keys(example.data).find((k) => validate({ ...example, data: Object.fromEntries(Object.entries(example.data).filter(([key]) => key !== k)) }) === false);
      expect(required, `${type}: data without any one of its fields is still accepted`).toBeDefined();
      expect(validate({ ...example, data: { ...example.data, surprise: 1 } }), `${type}: an undocumented field`).toBe(false);
    }
  });

  it("matches real deliveries of every event type, body and headers, signed as documented", async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c));
      req.on("end", () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const cli = async <T>(args: string[]): Promise<T> => {
      const run = await runCli(api.server.databaseUrl, [...args, "--json"], { env: ENV });
      if (run.code !== 0) throw new Error(`platform ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
      return JSON.parse(run.stdout) as T;
    };
    try {
      // A login app reading the chat and notifications (its own scope set: no other test shares it).
      const scopes = ["svc:chat.read", "svc:notifications.read"];
      const person = await api.createUser();
      let clientId = "";
      await api.token({ user: person.handle, scopes, onApp: (id) => (clientId = id) });
      const { port } = receiver.address() as AddressInfo;
      const hook = await cli<{ id: string; secret: string }>(["apps", "webhooks", "add", clientId, "--url", `http://127.0.0.1:${port}/hooks`]);

      const second = await api.createUser();
      await api.token({ user: second.handle, scopes }); // app.authorization.granted
      const writer = await api.createUser();
      const post = await api.call("/global-chat/messages", { method: "POST", token: await api.token({ user: writer.handle }), body: { text: "webhooks section" } });
      expect(post.status).toBe(201); // chat.message.created
      const poke = await api.call(`/users/${person.handle}/poke`, { method: "POST", token: await api.token({ user: writer.handle }) });
      expect(poke.status).toBe(200); // notification.created
      await cli(["users", "revoke-app", second.handle, clientId]); // app.authorization.revoked
      await cli(["apps", "webhooks", "test", clientId, hook.id]); // ping
      await cli(["apps", "suspend", clientId, "--reason", "Checking the webhooks section"]); // app.status.changed

      const deadline = Date.now() + 15_000;
      const types = () => new Set(received.map((r) => (JSON.parse(r.body) as { type: string }).type));
      while (types().size < EVENT_TYPES.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect([...types()].sort()).toEqual([...EVENT_TYPES].sort());

      const verifier = new Webhook(hook.secret);
      for (const delivery of received) {
        const body = JSON.parse(delivery.body) as { id: string; type: string };
        expectBody(body.type, body);
        expectHeaders(body.type, delivery.headers);
        expect(delivery.headers["webhook-id"]).toBe(body.id);
        expect(verifier.verify(delivery.body, delivery.headers)).toEqual(body);
      }
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it("documents the signature header of a rotation (two signatures) too", () => {
    const validate = ajv.compile(operation("ping").parameters.find((p: { name: string }) => p.name === "webhook-signature").schema);
    const sig = "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=";
    expect(validate(sig)).toBe(true);
    expect(validate(`${sig} ${sig}`)).toBe(true);
    expect(validate("v2,abc")).toBe(false);
    expect(validate(`${sig},`)).toBe(false);
  });
});
