/**
 * This process's counters, in Prometheus's text exposition format (issue 24): which path answered
 * each token request and each GET of the hosted login page, so tests can prove that a fast path
 * answered (a switched-off fast path must fail them) without a header clients would see. Served by `GET /metrics` only when METRICS_TOKEN
 * is set (lib/server/platform.ts); a later issue adds the operator metrics on the same registry.
 *
 * Counters live in memory, per process: with WEB_CONCURRENCY > 1 each scrape reads the worker that
 * took the connection (Prometheus sums the series of every target).
 */

/** Which path answered a token endpoint request (lib/oidc/index.ts). */
export type TokenPath = "client_credentials_fast" | "refresh_fast" | "oidc_provider";

interface CounterDefinition<L extends string> {
  name: string;
  help: string;
  label: string;
  values: readonly L[];
}

const TOKEN_REQUESTS: CounterDefinition<TokenPath> = {
  name: "platform_token_requests_total",
  help: "Token endpoint requests by the path that answered them: a fast path (lib/oidc/client-credentials.ts, refresh-grant.ts) or oidc-provider.",
  label: "path",
  values: ["client_credentials_fast", "refresh_fast", "oidc_provider"],
};

// A fixed label set, created at load: a scrape shows every series from 0, and no input can add one.
const tokenRequests = new Map<TokenPath, number>(TOKEN_REQUESTS.values.map((v) => [v, 0]));

export function countTokenRequest(path: TokenPath): void {
  tokenRequests.set(path, tokenRequests.get(path)! + 1);
}

/** Which path answered a GET of the hosted login and consent page `/interaction/:uid` (lib/server/platform.ts). */
export type HostedPagePath = "fast" | "next";

const HOSTED_PAGE_REQUESTS: CounterDefinition<HostedPagePath> = {
  name: "platform_hosted_page_requests_total",
  help: "GETs of the hosted login and consent page by the path that answered them: the server's own renderer (lib/server/hosted-page.ts) or Next.",
  label: "path",
  values: ["fast", "next"],
};

const hostedPageRequests = new Map<HostedPagePath, number>(HOSTED_PAGE_REQUESTS.values.map((v) => [v, 0]));

export function countHostedPageRequest(path: HostedPagePath): void {
  hostedPageRequests.set(path, hostedPageRequests.get(path)! + 1);
}

function renderCounter<L extends string>(definition: CounterDefinition<L>, counts: ReadonlyMap<L, number>): string {
  const lines = [`# HELP ${definition.name} ${definition.help}`, `# TYPE ${definition.name} counter`];
  for (const value of definition.values) lines.push(`${definition.name}{${definition.label}="${value}"} ${counts.get(value) ?? 0}`);
  return lines.join("\n");
}

/** Every counter, as `GET /metrics` answers (text/plain; version=0.0.4). */
export function renderMetrics(): string {
  return `${renderCounter(TOKEN_REQUESTS, tokenRequests)}\n${renderCounter(HOSTED_PAGE_REQUESTS, hostedPageRequests)}\n`;
}

/** Parses the exposition text into `name{labels}` → value (tests and operators' scripts). */
export function parseMetrics(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}
