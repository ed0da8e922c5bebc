import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { TRUSTED_DEVICE_COOKIE_PREFIX } from "../lib/oidc/constants";
import type { DpopSigner } from "./dpop";

/**
 * Real tokens from the running sign-in service: client credentials for the API client, and the
 * full authorization-code + PKCE flow through the hosted login form for each bench user (what a
 * login client does, minus the browser).
 */
export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
}

export async function discover(issuer: string): Promise<Discovery> {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const doc = (await response.json()) as Discovery;
  if (!doc.token_endpoint || !doc.authorization_endpoint) throw new Error("discovery document lacks endpoints");
  return doc;
}

export function clientCredentialsBody(clientId: string, clientSecret: string, scope?: string): string {
  const form = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  if (scope) form.set("scope", scope);
  return form.toString();
}

export async function clientCredentialsToken(tokenEndpoint: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: clientCredentialsBody(clientId, clientSecret),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: string; error?: string };
  if (!response.ok || !body.access_token) {
    throw new Error(`client credentials grant answered ${response.status} ${body.error ?? ""}`.trim());
  }
  return body.access_token;
}

/** Cookies of one browser session; paths are ignored (every cookie the flow sets has a distinct name). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(setCookie: string[] | undefined): void {
    for (const line of setCookie ?? []) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      if (eq <= 0) continue;
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }
}

/**
 * Each user's trusted-device cookie (lib/oidc/trusted-device.ts), kept from their last sign-in in
 * this process: a returning user signs in from their own browser, which the platform knows, as
 * people do (a sign-in from an unknown browser writes an audit entry and a notice; that is the
 * first sign-in of each bench user, not every one).
 */
const trustedDevices = new Map<string, string>();

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

interface FlowResponse {
  status: number;
  location: string | undefined;
  setCookie: string[] | undefined;
  body: string;
}

/**
 * The sign-in flow's HTTP client: node:http over kept-alive connections rather than fetch. The
 * load generator shares the machine's cores with the server and PostgreSQL, and fetch (undici's
 * WHATWG layer: Headers, streams, a Response per hop) cost it about 1.3 ms of CPU per request
 * here, 5 requests per sign-in: CPU case F then did not have for the sign-in itself.
 */
const flowAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function flowRequest(url: string, method: "GET" | "POST", headers: Record<string, string>, body?: string): Promise<FlowResponse> {
  if (!url.startsWith("http:")) return Promise.reject(new Error(`the bench's sign-in client speaks plain HTTP only (${url})`));
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers: body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) }, agent: flowAgent }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, location: response.headers.location, setCookie: response.headers["set-cookie"], body: text }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}

export interface LoginClient {
  clientId: string;
  redirectUri: string;
}

export interface UserTokens {
  accessToken: string;
  /** Login clients get one without asking for offline_access (SPEC step 5). */
  refreshToken?: string;
}

/**
 * One user through authorize → login form → (consent) → callback → code exchange. With
 * `loginPage`, the hosted login page (Next) is fetched before its form is posted, as a browser
 * does; without it only the form post is sent (the page is static for a given interaction). With
 * `dpop`, the code exchange carries a proof of that key, so the access token is bound to it
 * (`token_type: DPoP`, RFC 9449 §5).
 */
export async function signIn(
  discovery: Discovery,
  client: LoginClient,
  appOrigin: string,
  username: string,
  password: string,
  options: { loginPage?: boolean; resource?: string; dpop?: DpopSigner } = {},
): Promise<UserTokens> {
  const jar = new CookieJar();
  const deviceCookie = `${TRUSTED_DEVICE_COOKIE_PREFIX}${username.toLowerCase()}`;
  const knownDevice = trustedDevices.get(deviceCookie);
  if (knownDevice) jar.set(deviceCookie, knownDevice);
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(16).toString("base64url");
  const authorize = new URL(discovery.authorization_endpoint);
  authorize.search = new URLSearchParams({
    client_id: client.clientId,
    response_type: "code",
    redirect_uri: client.redirectUri,
    scope: "openid",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...(options.resource ? { resource: options.resource } : {}),
  }).toString();

  const get = async (url: string) => {
    const response = await flowRequest(url, "GET", { cookie: jar.header() });
    jar.store(response.setCookie);
    return response;
  };
  const post = async (url: string, form: Record<string, string>) => {
    const response = await flowRequest(
      url,
      "POST",
      { cookie: jar.header(), origin: appOrigin, "content-type": "application/x-www-form-urlencoded" },
      new URLSearchParams(form).toString(),
    );
    jar.store(response.setCookie);
    return response;
  };

  let response = await get(authorize.href);
  let loggedIn = false;
  for (let hops = 0; hops < 12; hops++) {
    const location = response.location;
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new Error(`sign-in of ${username} stopped at HTTP ${response.status}`);
    }
    const next = new URL(location, authorize);
    if (next.href.startsWith(client.redirectUri)) {
      if (next.searchParams.get("state") !== state) throw new Error("state mismatch");
      const code = next.searchParams.get("code");
      if (!code) throw new Error(`sign-in of ${username} failed: ${next.searchParams.get("error") ?? "no code"}`);
      const exchange = await flowRequest(
        discovery.token_endpoint,
        "POST",
        {
          "content-type": "application/x-www-form-urlencoded",
          ...(options.dpop ? { dpop: options.dpop.proof("POST", discovery.token_endpoint) } : {}),
        },
        new URLSearchParams({
          grant_type: "authorization_code",
          client_id: client.clientId,
          code,
          redirect_uri: client.redirectUri,
          code_verifier: verifier,
          ...(options.resource ? { resource: options.resource } : {}),
        }).toString(),
      );
      const tokens = parseJson(exchange.body) as { access_token?: string; refresh_token?: string; token_type?: string; error?: string };
      if (exchange.status !== 200 || !tokens.access_token) throw new Error(`code exchange answered ${exchange.status} ${tokens.error ?? ""}`);
      if (options.dpop && tokens.token_type !== "DPoP") throw new Error(`code exchange with a DPoP proof answered token_type ${tokens.token_type ?? "none"}`);
      const device = jar.get(deviceCookie);
      if (device) trustedDevices.set(deviceCookie, device);
      return { accessToken: tokens.access_token, ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}) };
    }
    const interaction = /\/interaction\/([A-Za-z0-9_-]+)$/.exec(next.pathname);
    if (interaction && !next.searchParams.has("error")) {
      const base = `${next.origin}/interaction/${interaction[1]}`;
      if (options.loginPage && !loggedIn) {
        const page = await get(next.href);
        if (page.status !== 200) throw new Error(`the login page of ${username} answered ${page.status}`);
      }
      if (loggedIn) {
        response = await post(`${base}/consent`, {});
      } else {
        loggedIn = true;
        const login = await post(`${base}/login`, { username, password });
        const after = new URL(login.location ?? "", next);
        if (login.status === 303 && after.pathname === next.pathname) {
          // Back to the same page: an error (wrong password…), or the prompt was not login.
          if (after.searchParams.has("error")) throw new Error(`login of ${username} refused: ${after.searchParams.get("error")}`);
          response = await post(`${base}/consent`, {});
        } else {
          response = login;
        }
      }
      continue;
    }
    if (next.searchParams.has("error")) throw new Error(`sign-in of ${username} failed: ${next.searchParams.get("error")}`);
    response = await get(next.href);
  }
  throw new Error(`sign-in of ${username}: too many redirects`);
}

/**
 * Signs users in, `concurrency` at a time, in order, until all are done or `deadline` (ms since
 * the epoch) passes; returns the tokens of the users done (always a prefix of `usernames`).
 */
export async function signInMany(
  discovery: Discovery,
  client: LoginClient,
  appOrigin: string,
  usernames: string[],
  password: string,
  concurrency: number,
  deadline: number,
  onProgress?: (done: number) => void,
): Promise<UserTokens[]> {
  const tokens = new Array<UserTokens>(usernames.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (;;) {
      if (Date.now() > deadline) return;
      const i = next++;
      if (i >= usernames.length) return;
      tokens[i] = await signIn(discovery, client, appOrigin, usernames[i]!, password);
      if (++done % 500 === 0) onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return tokens.slice(0, Math.min(next, usernames.length));
}
