import { PlatformError } from "./errors.js";
import { sleep } from "./wait.js";
import type { WebhookEvent, WebhookEventType } from "./webhooks.js";

/**
 * The live event stream (`GET /api/v1/events`, Server-Sent Events) as an async iterator that never
 * gives up early: it reconnects after a dropped connection with `Last-Event-ID`, so no event is
 * missed or repeated, waiting the server's `retry:` hint (then backing off to 30 s while the server
 * stays away). It ends when `signal` aborts, or with a PlatformError the server means for good
 * (401, 403, 400): a suspended app or a revoked person is not retried forever.
 */
export interface EventStreamOptions {
  /** Only these types (default: every type the token may see). */
  types?: readonly WebhookEventType[];
  /** Resume after this event id (e.g. the last one you stored before a restart). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Called when the stream (re)connects or drops: for logs. */
  onStatus?: (status: { connected: boolean; lastEventId?: string; error?: unknown }) => void;
}

const MAX_BACKOFF_MS = 30_000;

export async function* streamEvents(
  apiBaseUrl: string,
  bearer: () => Promise<string | undefined>,
  fetchImpl: typeof fetch,
  options: EventStreamOptions = {},
): AsyncGenerator<WebhookEvent, void, undefined> {
  let lastEventId = options.lastEventId;
  let retryMs = 2000;
  let failures = 0;
  const url = new URL(`${apiBaseUrl}/events`);
  if (options.types?.length) url.searchParams.set("types", options.types.join(","));
  while (!options.signal?.aborted) {
    let response: Response;
    try {
      const token = await bearer();
      response = await fetchImpl(url, {
        headers: {
          accept: "text/event-stream",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(lastEventId ? { "last-event-id": lastEventId } : {}),
        },
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) return;
      options.onStatus?.({ connected: false, ...(lastEventId ? { lastEventId } : {}), error });
      await sleep(Math.min(MAX_BACKOFF_MS, retryMs * 2 ** failures++), options.signal);
      continue;
    }
    if (!response.ok) {
      const error = await PlatformError.fromResponse(response);
      // Too many streams or the server busy: wait and try again. Anything else will not change by retrying.
      if (response.status !== 429 && response.status < 500) throw error;
      options.onStatus?.({ connected: false, ...(lastEventId ? { lastEventId } : {}), error });
      await sleep(Math.max((error.retryAfter ?? 0) * 1000, Math.min(MAX_BACKOFF_MS, retryMs * 2 ** failures++)), options.signal);
      continue;
    }
    failures = 0;
    options.onStatus?.({ connected: true, ...(lastEventId ? { lastEventId } : {}) });
    try {
      for await (const frame of frames(response.body!)) {
        if (frame.retry !== undefined) retryMs = frame.retry;
        if (frame.data === undefined) continue;
        const event = JSON.parse(frame.data) as WebhookEvent;
        lastEventId = frame.id ?? event.id;
        yield event;
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      options.onStatus?.({ connected: false, ...(lastEventId ? { lastEventId } : {}), error });
    }
    if (options.signal?.aborted) return;
    // The server ended the stream (a restart, a deploy): reconnect where we left off.
    await sleep(retryMs, options.signal);
  }
}

interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/** Server-Sent Events framing (the HTML standard's rules for the fields we use). */
async function* frames(body: ReadableStream<Uint8Array>): AsyncGenerator<Frame, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let frame: Frame = {};
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.search(/\r\n|\n|\r/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (frame.data !== undefined || frame.retry !== undefined) yield frame;
          frame = {};
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
        else if (field === "id") frame.id = value;
        else if (field === "event") frame.event = value;
        else if (field === "retry" && /^\d+$/.test(value)) frame.retry = Number(value);
      }
    }
  } finally {
    reader.releaseLock();
  }
}
