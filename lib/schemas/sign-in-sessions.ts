/** One of a person's sign-in sessions, as Account security and `users sessions` show it. */
export interface SignInSessionView {
  /** Public id (derived from the session's uid, which stays internal). */
  id: string;
  createdAt: Date;
  lastActiveAt: Date;
  userAgent: string;
  /** "Chrome 131", "Safari 17", or "" when the user agent does not say. */
  browser: string;
  /** "macOS", "iOS 17.2", or "". */
  os: string;
  /** The address's network only ("192.0.2.x", "2001:db8:1::/48"), or "". */
  addressPrefix: string;
  /** The portal session asking is this one ("This device"). */
  current: boolean;
}
