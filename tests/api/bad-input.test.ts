import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPEC_ERROR_CODES, SPEC_ERROR_STATUS, startApi, type Api } from "./support";

/**
 * Bad-input sweep: random JSON of wrong types, nulls, huge numbers, long and odd unicode
 * strings, duplicate query parameters, SQL- and path-looking strings, odd tokens and methods, over
 * every endpoint. Whatever comes in: never a 5xx, and every error is exactly the envelope with a
 * code from SPEC.md's table.
 */
let api: Api;
let tokens: (string | undefined)[];

beforeAll(async () => {
  api = await startApi();
  const fuzzer = await api.createUser({ handle: "fuzz_user" });
  tokens = [
    undefined,
    await api.token({ user: fuzzer.handle }),
    await api.token({ user: fuzzer.handle, scopes: ["svc:chat.read"] }),
    await api.token({ scopes: ["svc:chat.read", "svc:directory.read"] }),
    "garbage",
  ];
});
afterAll(async () => {
  await api?.stop();
});

const NASTY = [
  "' OR 1=1 --",
  "'; DROP TABLE \"User\"; --",
  "../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "%00",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "${jndi:ldap://x/a}",
  "<script>alert(1)</script>",
  "🪲".repeat(300),
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-1",
  "0",
  "00",
  "1e309",
  "9223372036854775808",
  "99999999999999999999999999",
  "1.5",
  " 5",
  "",
  " ",
  "\t\n",
  "ａｌｉｃｅ",
  "İSTANBUL",
  "straße",
  "\u202eevil",
  "a\u0301",
  "%",
  "%%%",
  "?",
  "#",
  "&limit=5",
  "/",
  "\\",
  "alice",
  "@alice",
  "1",
  "dTE6MQ",
];

const oddString = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", minLength: 200, maxLength: 400 }),
);

const oddJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  oddString,
  fc.constantFrom(null, true, false, 0, -0, 1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, 1.5, -1, [], {}, [null], { "": null }),
  fc.string({ minLength: 9000, maxLength: 9000 }),
);

/** Percent-encodes every byte but unreserved ones; lone surrogates become U+FFFD like a browser's. */
function encode(value: string): string {
  return [...Buffer.from(value, "utf8")].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0").toUpperCase()}`)).join("");
}

const queryArb = fc.array(fc.tuple(fc.constantFrom("limit", "page", "before", "cursor", "x", "limit[]", ""), oddString), { maxLength: 5 });

function queryString(pairs: [string, string][]): string {
  if (!pairs.length) return "";
  return `?${pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&")}`;
}

const bodyArb = fc.oneof(
  oddJson,
  fc.record({ text: oddJson, reply_to_id: oddJson }, { requiredKeys: [] }),
  fc.record({ identifiers: fc.oneof(oddJson, fc.array(fc.record({ type: fc.oneof(fc.constantFrom("handle", "x_handle", "codehost", "chatapp"), oddString), value: oddJson }, { requiredKeys: [] }), { maxLength: 60 })) }),
  fc.record({ identifiers: fc.array(fc.record({ type: fc.constantFrom("handle", "x_handle", "codehost", "chatapp"), value: oddString }), { minLength: 1, maxLength: 50 }) }),
  fc.record({ text: oddString }),
);

type Endpoint = { method: string; path: (p: string) => string; body?: boolean };
const ENDPOINTS: Endpoint[] = [
  { method: "GET", path: (p) => `/users/${p}` },
  { method: "GET", path: () => "/me" },
  { method: "GET", path: () => "/me/stats" },
  { method: "GET", path: () => "/me/notifications" },
  { method: "GET", path: () => "/me/beetle" },
  { method: "GET", path: () => "/me/beetle/cards" },
  { method: "POST", path: (p) => `/users/${p}/poke` },
  { method: "GET", path: () => "/global-chat/messages" },
  { method: "POST", path: () => "/global-chat/messages", body: true },
  { method: "POST", path: () => "/directory/resolve", body: true },
  { method: "GET", path: () => "/users" },
];

let requests = 0;

async function send(method: string, path: string, token: string | undefined, body?: unknown, contentType = "application/json") {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined;
  if (body !== undefined && method !== "GET" && method !== "HEAD") {
    payload = typeof body === "string" && contentType !== "application/json" ? body : JSON.stringify(body);
    headers["content-type"] = contentType;
  }
  requests++;
  const res = await fetch(api.url(path), { method, headers, body: payload });
  const text = await res.text();
  return { status: res.status, text, contentType: res.headers.get("content-type") };
}

function expectWellFormed(res: { status: number; text: string; contentType: string | null }, label: string): void {
  expect(res.status, `${label} → ${res.status} ${res.text.slice(0, 200)}`).toBeLessThan(500);
  if (res.status === 204 || res.text === "") return;
  expect(res.contentType).toBe("application/json; charset=utf-8");
  const body = JSON.parse(res.text);
  if (res.status < 400) {
    expect(typeof body).toBe("object");
    return;
  }
  expect(Object.keys(body), label).toEqual(["error"]);
  const { code, message, ...rest } = body.error;
  expect(SPEC_ERROR_CODES.has(code), `${label}: code ${code}`).toBe(true);
  expect(SPEC_ERROR_STATUS[code], `${label}: ${code} with HTTP ${res.status}`).toContain(res.status);
  expect(typeof message).toBe("string");
  expect(message.length).toBeGreaterThan(0);
  if (code === "poke_cooldown") expect(Object.keys(rest)).toEqual(["next_allowed_at"]);
  else expect(rest, label).toEqual({});
}

describe("bad input never breaks the API", () => {
  for (const endpoint of ENDPOINTS) {
    it(`${endpoint.method} ${endpoint.path("{x}")}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          oddString,
          queryArb,
          bodyArb,
          fc.nat({ max: tokens.length - 1 }),
          fc.oneof({ weight: 8, arbitrary: fc.constant(endpoint.method) }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH") }),
          fc.oneof({ weight: 8, arbitrary: fc.constant("application/json") }, { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/json; charset=latin1", "application/xml", "multipart/form-data") }),
          async (param, query, body, tokenIndex, method, contentType) => {
            const path = endpoint.path(encode(param)) + queryString(query);
            const res = await send(method, path, tokens[tokenIndex], endpoint.body || method === "POST" ? body : undefined, contentType);
            expectWellFormed(res, `${method} ${path.slice(0, 120)}`);
          },
        ),
        { numRuns: 280 },
      );
    });
  }

  it("raw, unencoded path-looking and odd paths under /api/v1", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...NASTY.filter((s) => !/[\u0000-\u001f\u007f-\uffff]/.test(s))), fc.webPath(), fc.string({ unit: "grapheme-ascii", maxLength: 40 })),
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD"),
        fc.nat({ max: tokens.length - 1 }),
        async (raw, method, tokenIndex) => {
          let path = `/${raw.replace(/^\/+/, "")}`;
          try {
            new URL(api.url(path));
          } catch {
            path = `/${encode(raw)}`;
          }
          const res = await send(method, path, tokens[tokenIndex], method === "POST" ? {} : undefined);
          expectWellFormed(res, `${method} ${path.slice(0, 120)}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("sent a few thousand requests without a single 5xx", () => {
    expect(requests).toBeGreaterThan(3000);
    expect(api.server.logs.filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });
});
