import type { z } from "zod";

/**
 * Helpers for the JSON columns (stats, Beetle state, chat media): they are written by the seed,
 * the CLI and future game services, so the API shapes them defensively: a value of the wrong type
 * is dropped rather than sent, and every response matches the documented schema.
 */
export function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function nonNegativeInt(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Unix seconds from a number (seconds or milliseconds) or a date string. */
export function toUnixSeconds(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) {
    return Math.floor(value > 1e11 ? value / 1000 : value);
  }
  if (typeof value === "string") {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms) && ms >= 0) return Math.floor(ms / 1000);
  }
  return undefined;
}

/** The documented keys that match their schema, plus any undocumented keys as stored. */
export function pickDocumented<S extends z.ZodObject<z.ZodRawShape>>(schema: S, value: unknown): z.output<S> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(asObject(value))) {
    const field = shape[key];
    if (!field) {
      out[key] = raw;
      continue;
    }
    const parsed = field.safeParse(raw);
    if (parsed.success && parsed.data !== undefined) out[key] = parsed.data;
  }
  return out as z.output<S>;
}

/** Items of a JSON array that match `schema`; the rest are dropped. */
export function validItems<S extends z.ZodType>(schema: S, value: unknown): z.output<S>[] {
  const out: z.output<S>[] = [];
  for (const item of asArray(value)) {
    const parsed = schema.safeParse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}
