let ipCounter = 0;

/**
 * A fresh IPv4 client address from the documentation ranges (sent as X-Forwarded-For to a server
 * with TRUST_PROXY), so tests do not share a per-address sign-in budget.
 */
export function freshIp(): string {
  const n = ++ipCounter;
  return n < 255 ? `203.0.113.${n}` : `198.51.100.${n - 254}`;
}
