import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env";

describe("parseEnv", () => {
  it("applies PRODUCT.md's defaults", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.APP_URL).toBe("http://localhost:3000");
    expect(env.ISSUER).toBe("http://localhost:3000/realms/platform");
    expect(env.API_URL).toBe("http://localhost:3000/api/v1");
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.SEED_DEMO).toBe(true);
    expect(env.ACCESS_TOKEN_TTL).toBeGreaterThan(0);
    expect(env.REFRESH_TOKEN_TTL).toBeGreaterThan(env.ACCESS_TOKEN_TTL);
  });

  it("WEB_CONCURRENCY: 1 by default, a number of workers or auto; anything else is refused", () => {
    expect(parseEnv({}).WEB_CONCURRENCY).toBe(1);
    expect(parseEnv({ WEB_CONCURRENCY: "4" }).WEB_CONCURRENCY).toBe(4);
    expect(parseEnv({ WEB_CONCURRENCY: "auto" }).WEB_CONCURRENCY).toBe("auto");
    for (const bad of ["0", "-1", "many", "1.5", "65"]) {
      expect(() => parseEnv({ WEB_CONCURRENCY: bad }), bad).toThrow(EnvError);
    }
    expect(parseEnv({}).DATABASE_POOL_SIZE).toBe(20);
  });

  it("METRICS_TOKEN: unset by default (no /metrics); a short one is refused, naming it", () => {
    expect(parseEnv({}).METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ METRICS_TOKEN: "x".repeat(32) }).METRICS_TOKEN).toBe("x".repeat(32));
    expect(() => parseEnv({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
  });

  it("SEALING_KEYS: id:key pairs, newest first; a bad pair or a repeated id is refused, naming it", () => {
    const a = "a".repeat(43);
    const b = "b".repeat(43);
    expect(parseEnv({}).SEALING_KEYS).toBeUndefined();
    expect(parseEnv({ SEALING_KEYS: `2027:${b}, 2026:${a}` }).SEALING_KEYS).toEqual([
      { id: "2027", key: b },
      { id: "2026", key: a },
    ]);
    for (const bad of [b, `x:${b.slice(1)}`, `x.y:${b}`, `x:${b},x:${a}`]) expect(() => parseEnv({ SEALING_KEYS: bad }), bad).toThrow(/SEALING_KEYS/);
  });

  it("WEBHOOK_ALLOWED_PORTS: 443 and 80 by default, a comma-separated list of ports; anything else is refused, naming it", () => {
    expect(parseEnv({}).WEBHOOK_ALLOWED_PORTS).toEqual([443, 80]);
    expect(parseEnv({ WEBHOOK_ALLOWED_PORTS: "443,8443" }).WEBHOOK_ALLOWED_PORTS).toEqual([443, 8443]);
    for (const bad of ["443,", "https", "0", "70000", "443 80"]) expect(() => parseEnv({ WEBHOOK_ALLOWED_PORTS: bad }), bad).toThrow(/WEBHOOK_ALLOWED_PORTS/);
  });

  it("METRICS_HOST: loopback by default, whatever HOST is", () => {
    expect(parseEnv({ HOST: "0.0.0.0" }).METRICS_HOST).toBe("127.0.0.1");
    expect(parseEnv({ METRICS_HOST: "0.0.0.0" }).METRICS_HOST).toBe("0.0.0.0");
  });

  it("derives the issuer from APP_URL and drops trailing slashes", () => {
    const env = parseEnv({ APP_URL: "https://dev.example.com/" });
    expect(env.APP_URL).toBe("https://dev.example.com");
    expect(env.ISSUER).toBe("https://dev.example.com/realms/platform");
  });

  it("does not seed an external database unless asked", () => {
    expect(parseEnv({ DATABASE_URL: "postgres://u:p@db/x" }).SEED_DEMO).toBe(false);
    expect(parseEnv({ DATABASE_URL: "postgres://u:p@db/x", SEED_DEMO: "1" }).SEED_DEMO).toBe(true);
    expect(parseEnv({ SEED_DEMO: "false" }).SEED_DEMO).toBe(false);
  });

  it("DATABASE_DIRECT_URL (issue 30): defaults to DATABASE_URL; another URL means DATABASE_URL is a pooler", () => {
    expect(parseEnv({})).toMatchObject({ DATABASE_DIRECT_URL: undefined, DATABASE_PGBOUNCER: false });
    expect(parseEnv({ DATABASE_URL: "postgres://u:p@db/x" })).toMatchObject({ DATABASE_DIRECT_URL: "postgres://u:p@db/x", DATABASE_PGBOUNCER: false });
    expect(parseEnv({ DATABASE_URL: "postgres://u:p@bouncer:6432/x", DATABASE_DIRECT_URL: "postgres://u:p@db/x" })).toMatchObject({
      DATABASE_DIRECT_URL: "postgres://u:p@db/x",
      DATABASE_PGBOUNCER: true,
    });
    expect(parseEnv({ DATABASE_URL: "postgres://u:p@bouncer:6432/x", DATABASE_PGBOUNCER: "1" })).toMatchObject({
      DATABASE_DIRECT_URL: "postgres://u:p@bouncer:6432/x",
      DATABASE_PGBOUNCER: true,
    });
    expect(() => parseEnv({ DATABASE_DIRECT_URL: "postgres://u:p@db/x" })).toThrow(/DATABASE_DIRECT_URL/);
  });

  it("DATABASE_REPLICA_URLS and REPLICA_MAX_LAG_SECONDS (issue 30): a trimmed list, 5 s by default, only with DATABASE_URL", () => {
    expect(parseEnv({}).DATABASE_REPLICA_URLS).toBeUndefined();
    expect(parseEnv({}).REPLICA_MAX_LAG_SECONDS).toBe(5);
    expect(
      parseEnv({ DATABASE_URL: "postgres://u:p@db/x", DATABASE_REPLICA_URLS: " postgres://u:p@r1/x, postgresql://u:p@r2/x ", REPLICA_MAX_LAG_SECONDS: "2.5" }),
    ).toMatchObject({ DATABASE_REPLICA_URLS: ["postgres://u:p@r1/x", "postgresql://u:p@r2/x"], REPLICA_MAX_LAG_SECONDS: 2.5 });
    expect(() => parseEnv({ DATABASE_REPLICA_URLS: "postgres://u:p@r1/x" })).toThrow(/DATABASE_REPLICA_URLS/);
  });

  it("WEBHOOKS_ALLOW_PRIVATE (issue 25): off unless set to 1", () => {
    expect(parseEnv({}).WEBHOOKS_ALLOW_PRIVATE).toBe(false);
    expect(parseEnv({ WEBHOOKS_ALLOW_PRIVATE: "0" }).WEBHOOKS_ALLOW_PRIVATE).toBe(false);
    expect(parseEnv({ WEBHOOKS_ALLOW_PRIVATE: "1" }).WEBHOOKS_ALLOW_PRIVATE).toBe(true);
    expect(() => parseEnv({ WEBHOOKS_ALLOW_PRIVATE: "maybe" })).toThrow(/WEBHOOKS_ALLOW_PRIVATE/);
  });

  it("sign-in abuse settings (issue 24): IPv6 throttled by /64, a line of 64 password checks, 3 s of wait", () => {
    expect(parseEnv({})).toMatchObject({ THROTTLE_IPV6_PREFIX: 64, PASSWORD_CHECK_QUEUE: 64, PASSWORD_CHECK_MAX_WAIT_MS: 3000 });
    expect(parseEnv({ THROTTLE_IPV6_PREFIX: "56" })).toMatchObject({ THROTTLE_IPV6_PREFIX: 56 });
  });

  it("TRUST_PROXY: a truthy TRUST_PROXY means some proxy is trusted; the rule says which", () => {
    expect(parseEnv({})).toMatchObject({ TRUST_PROXY: false, TRUST_PROXY_RULE: { mode: "none" } });
    expect(parseEnv({ TRUST_PROXY: "off" })).toMatchObject({ TRUST_PROXY: false, TRUST_PROXY_RULE: { mode: "none" } });
    expect(parseEnv({ TRUST_PROXY: "true" })).toMatchObject({ TRUST_PROXY: true, TRUST_PROXY_RULE: { mode: "hops", hops: 1 } });
    expect(parseEnv({ TRUST_PROXY: "3" })).toMatchObject({ TRUST_PROXY: true, TRUST_PROXY_RULE: { mode: "hops", hops: 3 } });
    expect(parseEnv({ TRUST_PROXY: "10.0.0.0/8,::1" })).toMatchObject({
      TRUST_PROXY: true,
      TRUST_PROXY_RULE: { mode: "list", ranges: [{ address: "10.0.0.0", prefix: 8 }, { address: "::1", prefix: 128 }] },
    });
  });

  it.each([
    ["PORT", { PORT: "eighty" }],
    ["PORT", { PORT: "70000" }],
    ["APP_URL", { APP_URL: "not a url" }],
    ["APP_URL", { APP_URL: "ftp://example.com" }],
    ["ISSUER", { ISSUER: "nope" }],
    ["DATABASE_URL", { DATABASE_URL: "mysql://x" }],
    ["DATABASE_DIRECT_URL", { DATABASE_URL: "postgres://u:p@db/x", DATABASE_DIRECT_URL: "mysql://x" }],
    ["DATABASE_PGBOUNCER", { DATABASE_PGBOUNCER: "maybe" }],
    ["DATABASE_REPLICA_URLS", { DATABASE_URL: "postgres://u:p@db/x", DATABASE_REPLICA_URLS: "postgres://u:p@r1/x,mysql://r2" }],
    ["REPLICA_MAX_LAG_SECONDS", { REPLICA_MAX_LAG_SECONDS: "0" }],
    ["ACCESS_TOKEN_TTL", { ACCESS_TOKEN_TTL: "-5" }],
    ["REFRESH_TOKEN_TTL", { REFRESH_TOKEN_TTL: "1.5" }],
    ["SEED_DEMO", { SEED_DEMO: "maybe" }],
    ["COOKIE_SECRETS", { COOKIE_SECRETS: "short" }],
    ["TRUST_PROXY", { TRUST_PROXY: "maybe" }],
    ["TRUST_PROXY", { TRUST_PROXY: "10.0.0.0/33" }],
    ["TRUST_PROXY", { TRUST_PROXY: "10.0.0.1, proxy.internal" }],
    ["THROTTLE_IPV6_PREFIX", { THROTTLE_IPV6_PREFIX: "16" }],
    ["THROTTLE_IPV6_PREFIX", { THROTTLE_IPV6_PREFIX: "64.5" }],
    ["PASSWORD_CHECK_QUEUE", { PASSWORD_CHECK_QUEUE: "0" }],
    ["PASSWORD_CHECK_MAX_WAIT_MS", { PASSWORD_CHECK_MAX_WAIT_MS: "soon" }],
  ])("rejects a bad %s with one line naming it", (name, source) => {
    let error: unknown;
    try {
      parseEnv(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    expect(message).not.toContain("\n");
  });
});
