import { describe, expect, it } from "vitest";
import { avatarInitials, avatarSvg } from "./avatars";

describe("avatars", () => {
  it("derives initials from handle parts", () => {
    expect(avatarInitials("alice")).toBe("A");
    expect(avatarInitials("saffron_soren")).toBe("SS");
    expect(avatarInitials("wei1972")).toBe("W");
    expect(avatarInitials("the_orbit_maya")).toBe("TO");
    expect(avatarInitials("_1")).toBe("_");
  });

  it("draws a stable SVG of the requested size, clamped", () => {
    const svg = avatarSvg("alice", 48);
    expect(svg).toBe(avatarSvg("alice", 48));
    expect(svg).not.toBe(avatarSvg("bob", 48));
    expect(svg).toMatch(/^<svg [^>]*width="48" height="48"/);
    expect(avatarSvg("alice", 99999)).toContain('width="512"');
    expect(avatarSvg("alice", 1)).toContain('width="16"');
  });
});
