import { createHash } from "node:crypto";

/**
 * Generated avatars: the platform serves no remote images, so every seeded `avatarUrl`
 * (`/avatars/<handle>.svg`) is drawn here from the handle alone: initials on a colour derived
 * from it. No database read, so it is cheap and cacheable.
 */
export const AVATAR_HANDLE = /^[a-z0-9_]{1,30}$/;

export function avatarInitials(handle: string): string {
  const parts = handle.split(/[_0-9]+/).filter(Boolean);
  const letters = parts.length >= 2 ? parts[0]![0]! + parts[1]![0]! : (parts[0] ?? handle).slice(0, 1);
  return (letters || "?").toUpperCase();
}

export function avatarSvg(handle: string, size = 128): string {
  const digest = createHash("sha256").update(handle).digest();
  const hue = digest.readUInt16BE(0) % 360;
  const accent = (hue + 40 + (digest[2]! % 80)) % 360;
  const px = Math.min(512, Math.max(16, Math.round(size)));
  const initials = avatarInitials(handle);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${px}" height="${px}" viewBox="0 0 64 64" role="img" aria-label="${handle}">`,
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">`,
    `<stop offset="0" stop-color="hsl(${hue} 60% 42%)"/><stop offset="1" stop-color="hsl(${accent} 65% 32%)"/>`,
    `</linearGradient></defs>`,
    `<rect width="64" height="64" fill="url(#g)"/>`,
    `<text x="32" y="33" dominant-baseline="middle" text-anchor="middle" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="${initials.length > 1 ? 24 : 30}" font-weight="600" fill="#fff">${initials}</text>`,
    `</svg>`,
  ].join("");
}
