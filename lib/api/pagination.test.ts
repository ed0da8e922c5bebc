import { describe, expect, it } from "vitest";
import { decodeUsersCursor, encodeUsersCursor } from "./pagination";

describe("users cursor", () => {
  it("round-trips every id", () => {
    for (const id of [0, 1, 25, 99_999, 2_147_483_647]) expect(decodeUsersCursor(encodeUsersCursor(id))).toBe(id);
  });

  it("is opaque base64url", () => {
    expect(encodeUsersCursor(42)).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(encodeUsersCursor(42)).not.toContain("42");
  });

  it("refuses anything it did not issue with invalid_request", () => {
    const good = encodeUsersCursor(42);
    const bad = [
      "",
      "!!!",
      `${good}=`,
      good.slice(0, -1),
      Buffer.from("u1:42 ").toString("base64url"),
      Buffer.from("u1:042").toString("base64url"),
      Buffer.from("u1:-1").toString("base64url"),
      Buffer.from("u1:2147483648").toString("base64url"),
      Buffer.from("u2:42").toString("base64url"),
      Buffer.from('{"id":42}').toString("base64url"),
      "A".repeat(100),
    ];
    for (const cursor of bad) {
      expect(() => decodeUsersCursor(cursor), cursor).toThrow(expect.objectContaining({ code: "invalid_request", status: 400 }));
    }
  });
});
