import { z } from "zod";
import { AppError } from "../../errors";
import { openEventStream } from "../../events/stream";
import { EVENT_TYPES, MAX_STREAMS_PER_APP, MAX_STREAMS_PER_USER, STREAM_RESUME_WINDOW_HOURS, eventTypeSchema, type EventType } from "../../schemas/events";
import { tokenLifetimeOf } from "../auth";
import { defineRoute } from "../handler";
import type { ReplyStream } from "../request-reply";

/** The live event stream for apps without a public URL (Server-Sent Events). */

const streamQuerySchema = z.object({
  types: z
    .string()
    .max(500)
    .optional()
    .transform((v, ctx): EventType[] | null => {
      if (!v) return null;
      const types = v.split(",").map((t) => t.trim()).filter(Boolean);
      for (const t of types) {
        if (!eventTypeSchema.safeParse(t).success) {
          ctx.addIssue({ code: "custom", message: `unknown event type "${t.slice(0, 60)}" (one of ${EVENT_TYPES.join(", ")})` });
          return z.NEVER;
        }
      }
      return types as EventType[];
    })
    .describe("Comma-separated event types to receive; all the token may see when omitted."),
  last_event_id: z.string().max(64).optional().describe("Resume after this event id (the same as the Last-Event-ID header, for clients that cannot set headers)."),
});

export const eventStreamRoute = defineRoute({
  method: "GET",
  path: "/events",
  operationId: "streamEvents",
  summary: "Stream the events the token may see (Server-Sent Events)",
  description:
    "Each event arrives as `id: evt_…`, `event: <type>` and `data: <the event JSON>` lines, the same body a webhook receives. " +
    `Reconnect with the \`Last-Event-ID\` header (or \`last_event_id\`) to resume without a gap or a repeat, for up to ${STREAM_RESUME_WINDOW_HOURS} hours back (an older or unknown id: 400 \`invalid_request\`). ` +
    "A comment line (`: heartbeat`) comes every 15 s. An app token receives the app's events; a user-delegated token receives its person's " +
    "events and app-wide ones its scopes allow. A sandbox token (client `sbx_…`) receives its sandbox's events only, a live token never those. " +
    `At most ${MAX_STREAMS_PER_APP} streams per app on each server process, ${MAX_STREAMS_PER_USER} of them for one person's tokens (429 beyond). ` +
    "The stream ends with its token: at its expiry, and when the token is revoked, the app's secret is rolled, the app is suspended or deleted, " +
    "or for a user token when the person revokes the app; a reader that falls too far behind is disconnected. A comment `: closed <reason>: …` names why.",
  tag: "Events",
  auth: "any",
  query: streamQuerySchema,
  response: { status: 200, schema: z.string(), description: "An event stream (text/event-stream).", stream: true },
  errors: ["invalid_request", "forbidden", "rate_limited"],
  async handler({ caller, query, request }) {
    if (caller.kind === "anonymous") throw new AppError("unauthorized", "This endpoint requires a bearer token.");
    // A sandbox token streams its sandbox's events only (the caller's world).
    const opened = await openEventStream(
      { clientId: caller.clientId, userId: caller.kind === "user" ? caller.userId : null, scopes: caller.scopes, worldId: caller.worldId },
      await tokenLifetimeOf(request),
      { types: query.types, lastEventId: request.headers.get("last-event-id") ?? query.last_event_id ?? null },
    );
    return opened satisfies ReplyStream as unknown as string;
  },
});
