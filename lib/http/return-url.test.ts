import { describe, expect, it } from "vitest";
import { DEFAULT_RETURN_PATH, resolveReturnPath, resolveReturnUrl } from "./return-url";

const APP = "http://localhost:3000";

describe("resolveReturnPath", () => {
  it.each([
    ["/apps", "/apps"],
    ["/apps/app_123?tab=secrets#reveal", "/apps/app_123?tab=secrets#reveal"],
    ["/", "/"],
    [`${APP}/admin/apps`, "/admin/apps"],
    [`${APP}`, "/"],
    ["apps/new", "/apps/new"],
    ["?page=2", "/?page=2"],
    // Encoded slashes, backslashes and tabs stay encoded: a path on our own origin.
    ["/%2F%2Fevil.example", "/%2F%2Fevil.example"],
    ["%2F%2Fevil.example", "/%2F%2Fevil.example"],
    ["/%5Cevil.example", "/%5Cevil.example"],
    ["/%09/evil.example", "/%09/evil.example"],
    // `http:` with our own scheme and no slashes is a relative path in the WHATWG parser.
    ["http:evil.example", "/evil.example"],
    // Dot segments that leave `//host` behind: one leading slash only.
    ["/.//evil.example", "/evil.example"],
    ["/apps/..//evil.example/x", "/evil.example/x"],
  ])("%j stays on our origin as %j", (value, expected) => {
    expect(resolveReturnPath(value, APP)).toBe(expected);
  });

  it.each([
    // Tabs and newlines: browsers drop them anywhere in a URL, `/\t/evil` is `//evil`.
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "\t//evil.example",
    "/\t\\evil.example",
    " //evil.example",
    "\u0000//evil.example",
    // Protocol-relative and backslash forms.
    "//evil.example",
    "///evil.example",
    "////evil.example/path",
    "/\\evil.example",
    "\\\\evil.example",
    "\\/evil.example",
    "/\\/evil.example",
    // Other origins, including look-alikes of ours.
    "https://evil.example",
    "https://evil.example/apps",
    "https:evil.example",
    "https:/evil.example",
    "HTTPS://EVIL.EXAMPLE",
    "http://localhost:3000@evil.example/",
    "http://localhost:3000.evil.example/",
    "http://localhost:3001/apps",
    "https://localhost:3000/apps",
    "http://evil.example#http://localhost:3000/",
    "http://%65vil.example/",
    // Schemes without an origin.
    "javascript:alert(1)",
    "JaVaScRiPt:alert(document.cookie)",
    "java\tscript:alert(1)",
    " javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "mailto:a@evil.example",
  ])("%j falls back", (value) => {
    expect(resolveReturnPath(value, APP)).toBe(DEFAULT_RETURN_PATH);
  });

  it("falls back for anything that is not one usable string; arrays use their first value", () => {
    for (const value of [undefined, null, "", 42, {}, [], [42], "/x".padEnd(3000, "x")]) {
      expect(resolveReturnPath(value, APP), JSON.stringify(value)).toBe(DEFAULT_RETURN_PATH);
    }
    expect(resolveReturnPath(["/apps/new", "//evil.example"], APP)).toBe("/apps/new");
    expect(resolveReturnPath(["//evil.example", "/apps"], APP)).toBe(DEFAULT_RETURN_PATH);
    expect(resolveReturnPath("//evil.example", APP, "/")).toBe("/");
  });

  it("a result is always one leading slash and no tab, newline or backslash (safe in a Location header)", () => {
    const tricky = ["/\t/a", "/a\tb", "/a\nb\\c", "/%0a", "/a b", "/\u2028x", "/x?\t#\n"];
    for (const value of tricky) {
      const path = resolveReturnPath(value, APP);
      expect(path, JSON.stringify(value)).toMatch(/^\/(?!\/)/);
      expect(path, JSON.stringify(value)).not.toMatch(/[\t\n\r\\ ]/);
      expect(new URL(path, "https://other.example").origin).toBe("https://other.example");
    }
  });

  it("works behind an https APP_URL", () => {
    expect(resolveReturnPath("https://dev.example.com/apps?x=1", "https://dev.example.com")).toBe("/apps?x=1");
    expect(resolveReturnPath("http://dev.example.com/apps", "https://dev.example.com")).toBe(DEFAULT_RETURN_PATH);
  });
});

describe("resolveReturnUrl", () => {
  it("is the same path on APP_URL's origin", () => {
    expect(resolveReturnUrl("/apps/new", APP)).toBe(`${APP}/apps/new`);
    expect(resolveReturnUrl("/\t/evil.example", APP)).toBe(`${APP}/apps`);
    expect(resolveReturnUrl("https://evil.example", "https://dev.example.com", "/")).toBe("https://dev.example.com/");
  });
});
