/**
 * Type test (compiled by `npm run typecheck`, never run): code using the SDK is checked against the
 * OpenAPI document's generated types, so a wrong path or a wrong field fails the typecheck. Each
 * `@ts-expect-error` below must stay an error: if the SDK lost its types, tsc would report the
 * directive as unused and fail.
 */
import { createClient, PlatformError } from "@social-dev-platform/sdk";

export async function typedUsage() {
  const client = createClient({ baseUrl: "http://localhost:3000/api/v1", token: "token" });

  // Right: typed path, parameters, body and answer.
  const profile = await client.GET("/users/{username}", { params: { path: { username: "alice" } } });
  const name: string = profile.user.displayName;
  const page = await client.GET("/global-chat/messages", { params: { query: { limit: 5 } } });
  const firstText: string | undefined = page.data.messages[0]?.text;
  await client.POST("/global-chat/messages", { body: { text: "hello" } });
  for await (const message of client.chat.messages()) {
    const author: string = message.author.handle;
    void author;
    break;
  }

  // @ts-expect-error -- a path the API does not have
  await client.GET("/global-chat/message");

  // @ts-expect-error -- POST /global-chat/messages takes `text`, not `txt`
  await client.POST("/global-chat/messages", { body: { txt: "hello" } });

  // @ts-expect-error -- a chat message has no `body` field
  const wrongField: string = page.data.messages[0]!.body;

  // @ts-expect-error -- the path parameter is required
  await client.GET("/users/{username}");

  // @ts-expect-error -- stats has no `handle_name` (it is `handle`)
  void (await client.me.stats()).handle_name;

  // PlatformError.code is the union of the documented codes (generated from the OpenAPI document).
  const error = await client.users.poke("bob").catch((e: unknown) => e);
  if (error instanceof PlatformError) {
    const known: boolean = error.code === "poke_cooldown" || error.code === "network_error" || error.code === "idempotency_key_reused";
    // @ts-expect-error -- a misspelled code ("rate_limitted") is not a code the platform has
    const misspelled: boolean = error.code === "rate_limitted";
    void known;
    void misspelled;
  }

  // Every result says which request it was and how much of the rate limit is left.
  const requestId: string | undefined = page.requestId;
  const remaining: number | undefined = page.rateLimit?.remaining;
  // @ts-expect-error -- the rate limit has no \`left\`
  void page.rateLimit?.left;

  return { name, firstText, wrongField, requestId, remaining };
}
