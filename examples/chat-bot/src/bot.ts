import {
  clientCredentials,
  createClient,
  createLoginClient,
  PlatformError,
  refreshingTokens,
  type ChatMessage,
  type PlatformClient,
} from "@social-dev-platform/sdk";

/**
 * A chat bot in one file, on the SDK and the public endpoints only:
 *  - it follows the global chat as an API client (app-only token, client credentials) on the live
 *    event stream: each message arrives the moment it is posted, without polling (no quota spent
 *    waiting), and a dropped connection resumes where it left off (Last-Event-ID); it also hears
 *    when its app is suspended or reinstated;
 *  - it posts as its operator, a person who signs it in once through the device flow (a code to type
 *    in any browser: no web server, no redirect URI), with a user-delegated `svc:chat.write` token
 *    that it refreshes by itself;
 *  - it answers `!ping` with `pong @author` as a reply, and honours 429 `rate_limited` and its
 *    `Retry-After`.
 *
 * Environment: BOT_CREDENTIALS (`<API client ID>:<secret>`, an API client with svc:chat.read) and
 * OPERATOR_CLIENT_ID (a login client with svc:chat.write and device sign-in allowed); optional
 * PLATFORM_URL (default http://localhost:3000).
 */
const PLATFORM_URL = (process.env.PLATFORM_URL ?? "http://localhost:3000").replace(/\/$/, "");
const ISSUER = `${PLATFORM_URL}/realms/platform`;
const API_URL = `${PLATFORM_URL}/api/v1`;
const credentials = process.env.BOT_CREDENTIALS ?? "";
const separator = credentials.indexOf(":");
const OPERATOR_CLIENT_ID = process.env.OPERATOR_CLIENT_ID;
if (separator < 1 || !OPERATOR_CLIENT_ID) {
  console.error("Set BOT_CREDENTIALS=<API client ID>:<client secret> and OPERATOR_CLIENT_ID=<login client ID> (see README.md)");
  process.exit(1);
}

const stop = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => stop.abort());

// 1. Read the chat as the app itself: the provider caches the token and renews it before it expires.
const reader = createClient({
  baseUrl: API_URL,
  tokenProvider: clientCredentials({ issuer: ISSUER, clientId: credentials.slice(0, separator), clientSecret: credentials.slice(separator + 1) }),
});
// The stream starts now: open it before anything else, so nothing posted from here on is missed.
const stream = reader.events({ types: ["chat.message.created", "app.status.changed"], signal: stop.signal });
const first = stream.next();
console.log("bot: reading the chat with its app token, on the event stream");

// 2. The operator signs the bot in on any device: show the code, wait for the confirmation.
const login = await createLoginClient({ issuer: ISSUER, clientId: OPERATOR_CLIENT_ID });
const device = await login.startDeviceSignIn();
console.log(`bot: to let the bot post as you, open ${device.verificationUri} and enter the code ${device.userCode}`);
if (device.verificationUriComplete) console.log(`bot: or open ${device.verificationUriComplete}`);
const operatorTokens = refreshingTokens(login, await device.tokens({ signal: stop.signal }));
const writer = createClient({
  baseUrl: API_URL,
  tokenProvider: operatorTokens,
  onRetry: ({ status, delayMs }) => {
    if (status === 429) console.log(`bot: rate limited, retrying in ${Math.ceil(delayMs / 1000)} s`);
  },
});
const operator = await writer.me.get();
console.log(`bot: signed in as @${operator.user.username}; answering !ping`);

// 3. Follow the chat and answer commands. The SDK retries a 429 after its Retry-After by itself
// (the chat takes one post per 2 seconds per person), with the same Idempotency-Key: no retry loop here.
async function reply(client: PlatformClient, to: ChatMessage, text: string): Promise<ChatMessage> {
  return client.chat.post(text, { replyToId: to.id });
}

try {
  for (let next = await first; !next.done; next = await stream.next()) {
    const event = next.value;
    if (event.type === "app.status.changed") {
      console.log(`bot: the app is now ${event.data.status}${event.data.reason ? `: ${event.data.reason}` : ""}`);
      continue;
    }
    if (event.type !== "chat.message.created") continue;
    const message = event.data;
    if (!/^!ping\b/.test(message.text.trim())) continue;
    const answer = await reply(writer, message, `pong @${message.author.handle}`);
    console.log(`bot: answered message ${message.id} with message ${answer.id}`);
  }
} catch (error) {
  // Never print tokens: the error's code and request id are what a report needs.
  console.error(`bot: stopped: ${error instanceof PlatformError ? `${error.code} ${error.message} (${error.requestId ?? "no request id"})` : String(error)}`);
  process.exit(1);
}
console.log("bot: stopped");
