import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAction, toActionError } from "./result";
import { AppError } from "../errors";

describe("server action results", () => {
  it("passes an AppError's code, client-safe message and field errors through", async () => {
    const result = await runAction("test", async () => {
      throw new AppError("invalid_request", "A login client needs at least one redirect URI", {
        fields: { redirectUris: "A login client needs at least one redirect URI" },
      });
    });
    expect(result).toEqual({
      ok: false,
      error: {
        code: "invalid_request",
        message: "A login client needs at least one redirect URI",
        fields: { redirectUris: "A login client needs at least one redirect URI" },
      },
    });
  });

  it("turns a zod error into invalid_request with one message per field", () => {
    const parsed = z.object({ name: z.string().min(1, "Enter a name"), reason: z.string().min(1, "Give a reason") }).safeParse({ name: "", reason: "" });
    expect(parsed.success).toBe(false);
    const error = toActionError(parsed.error, "test");
    expect(error.code).toBe("invalid_request");
    expect(error.fields).toEqual({ name: "Enter a name", reason: "Give a reason" });
  });

  it("never echoes an unexpected error's message to the client", async () => {
    const result = await runAction("test", async () => {
      throw new Error('duplicate key value violates unique constraint "Application_clientId_key" at /srv/app');
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("internal_error");
    expect(result.error.message).not.toMatch(/duplicate|constraint|srv/);
  });

  it("lets Next's redirect and forbidden control flow through", async () => {
    const redirect = Object.assign(new Error("NEXT_REDIRECT"), { digest: "NEXT_REDIRECT;replace;/signin;307;" });
    await expect(runAction("test", async () => Promise.reject(redirect))).rejects.toBe(redirect);
    const forbidden = Object.assign(new Error("forbidden"), { digest: "NEXT_HTTP_ERROR_FALLBACK;403" });
    await expect(runAction("test", async () => Promise.reject(forbidden))).rejects.toBe(forbidden);
  });

  it("wraps a successful result", async () => {
    expect(await runAction("test", async () => ({ clientId: "api_x" }))).toEqual({ ok: true, data: { clientId: "api_x" } });
  });
});
