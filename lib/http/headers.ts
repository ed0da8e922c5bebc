import type { IncomingHttpHeaders } from "node:http";

/** Request headers as Node parses them, or any `get(name)` view of them (a Web `Request`'s, the API's). */
export type HeaderSource = IncomingHttpHeaders | { get(name: string): string | null };

/** One header's value (repeated headers joined with ", "), or undefined. `name` is lower-case. */
export function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === "function") return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const value = (headers as IncomingHttpHeaders)[name];
  return Array.isArray(value) ? value.join(", ") : value;
}
