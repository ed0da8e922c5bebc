import { isIP } from "node:net";
import { normalizeAddress, throttleKeyOf } from "./client-ip";

/**
 * Where a sign-in session came from, told without the address itself: an IPv4 address by
 * its /24 (`192.0.2.x`), an IPv6 address by its /48 (`2001:db8:1::/48`, one site's allocation,
 * RFC 6177). No geo database is available offline, so this prefix is the "approximate place" shown;
 * the full address is never stored with a session nor shown. Anything else is "".
 */
export function maskAddress(raw: string | undefined | null): string {
  const address = raw ? normalizeAddress(raw) : null;
  if (!address) return "";
  if (isIP(address) === 4) return `${address.split(".").slice(0, 3).join(".")}.x`;
  return throttleKeyOf(address, 48);
}
