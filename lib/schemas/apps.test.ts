import { describe, expect, it } from "vitest";
import { checkPublicLink, createAppSchema, logoInputSchema, logoPath, MAX_LOGO_BYTES, sniffLogoType, updateAppSchema } from "./apps";

/** The pure parts of the identity rules; the decode check and serving: tests/services/app-identity.test.ts. */
describe("app links", () => {
  it("accept https only, without credentials; an empty value clears a link", () => {
    expect(checkPublicLink("https://example.com/privacy")).toBeNull();
    expect(checkPublicLink("http://example.com/")).toBe("must use https://");
    expect(checkPublicLink("http://localhost:3000/")).toBe("must use https://");
    expect(checkPublicLink("javascript:alert(1)")).toBe("must use https://");
    expect(checkPublicLink("https://user:pw@example.com/")).toBe("must not contain a user name or password");
    expect(checkPublicLink("example.com")).toMatch(/absolute URL/);
    expect(updateAppSchema.parse({ homepageUrl: "  " }).homepageUrl).toBeNull();
    expect(updateAppSchema.parse({ termsUrl: null }).termsUrl).toBeNull();
    const create = createAppSchema.safeParse({ name: "A", type: "api", privacyPolicyUrl: "http://a.example/" });
    expect(create.success).toBe(false);
    expect(create.error!.issues[0]).toMatchObject({ path: ["privacyPolicyUrl"], message: "must use https://" });
  });
});

describe("logo uploads", () => {
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
  const webp = new TextEncoder().encode("RIFF\u0000\u0000\u0000\u0000WEBPVP8 ");

  it("are recognised by their magic bytes, never by a name", () => {
    expect(sniffLogoType(png)).toBe("png");
    expect(sniffLogoType(jpeg)).toBe("jpg");
    expect(sniffLogoType(webp)).toBe("webp");
    expect(sniffLogoType(new TextEncoder().encode("<!doctype html><html>"))).toBeNull();
    expect(sniffLogoType(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg">'))).toBeNull();
    expect(sniffLogoType(new TextEncoder().encode("RIFF\u0000\u0000\u0000\u0000WAVEfmt "))).toBeNull();
  });

  it("are refused early when empty, too big or not an image; null removes the logo", () => {
    expect(logoInputSchema.safeParse(png).success).toBe(true);
    expect(logoInputSchema.parse(null)).toBeNull();
    expect(logoInputSchema.safeParse(new Uint8Array()).error?.issues[0]?.message).toBe("The file is empty");
    const big = new Uint8Array(MAX_LOGO_BYTES + 1);
    big.set(png);
    expect(logoInputSchema.safeParse(big).error?.issues[0]?.message).toBe("The logo is 257 KiB; at most 256 KiB");
    expect(logoInputSchema.safeParse(new TextEncoder().encode("<svg/>")).error?.issues[0]?.message).toMatch(/PNG, JPEG or WebP/);
    expect(logoInputSchema.safeParse("iVBORw0KGgo=").success).toBe(false);
  });

  it("are served from our own origin under their file name", () => {
    expect(logoPath("app_x", "0123456789abcdef.png")).toBe("/media/logos/app_x/0123456789abcdef.png");
  });
});
