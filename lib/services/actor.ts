/**
 * Who is doing something: a signed-in user (portal, admin area, API) or the platform itself (CLI,
 * start-up). Services take it for permission checks and for the audit log.
 */
export type Actor =
  | { kind: "user"; id: number; handle: string; role: "user" | "admin"; ip?: string }
  | { kind: "system"; name: string };

/** Admins and the operator (CLI, start-up) may review apps and manage users. */
export function isAdminActor(actor: Actor): boolean {
  return actor.kind === "system" || actor.role === "admin";
}

export function actorLabel(actor: Actor): string {
  return actor.kind === "user" ? actor.handle : `system:${actor.name}`;
}

export const CLI_ACTOR: Actor = { kind: "system", name: "cli" };
export const STARTUP_ACTOR: Actor = { kind: "system", name: "startup" };
