/**
 * The demo accounts of PRODUCT.md. Their passwords are public on purpose (README, start banner):
 * they exist only in demo data, which is never seeded into a database unless asked.
 */
export const DEMO_ACCOUNTS = [
  { handle: "alice", password: "alice-demo-pass", role: "user", note: "developer; friends with bob" },
  { handle: "bob", password: "bob-demo-pass", role: "user", note: "friend of alice" },
  { handle: "carol", password: "carol-demo-pass", role: "user", note: "developer" },
  { handle: "mallory", password: "mallory-demo-pass", role: "user", note: "muted: cannot post to chat" },
  { handle: "dave", password: "dave-demo-pass", role: "user", note: "disabled: cannot sign in" },
  { handle: "admin", password: "admin-demo-pass", role: "admin", note: "admin: approves apps" },
] as const;

