import { createHash } from "node:crypto";
import Bowser from "bowser";
import { LRUCache } from "lru-cache";
import { db, type Tx } from "../database/client";
import { onChange, publishChange, transactionWithChanges } from "../database/changes";
import { AppError } from "../errors";
import { maskAddress } from "../http/address-prefix";
import { logger } from "../logger";
import { insertNewDeviceNotice, upsertSignInSessionActivity } from "../queries/sign-in-sessions";
import type { SignInSessionView } from "../schemas/sign-in-sessions";
import { recordAudit, type Actor } from "./audit";

/**
 * Sign-in sessions people can see and end (part 4). A session is oidc-provider's Session
 * (the OidcModel row of kind Session, lib/oidc/adapter.ts); the SignInSession row beside it, by the
 * session's `uid`, keeps what Account security shows: the browser's user agent, the address's
 * network only (lib/http/address-prefix.ts), created and last active. lib/oidc/provider.ts records
 * it on every authorization the session answers.
 *
 * The portal's next-auth session names the sign-in session it came from (lib/portal/auth.ts keeps
 * its uid in the encrypted JWT, server-side); lib/portal/session.ts refuses a portal session whose
 * sign-in session is gone. That check is cached per process (LIVE_CACHE_TTL_MS) and the cache is
 * dropped through the change channel (`session`) whenever sessions are ended here, so a session
 * ended on one process ends the portal on every process at once.
 *
 * Ending a session never revokes what apps were granted (that is Connected apps): their refresh
 * tokens stay good unless they were bound to the session.
 */

/** How long "this sign-in session is live" is believed without asking the database again. */
const LIVE_CACHE_TTL_MS = 30_000;
/** The portal's use of a session counts as activity at most this often (one UPDATE). */
const ACTIVITY_WRITE_INTERVAL_MS = 5 * 60_000;
const MAX_USER_AGENT = 512;

/**
 * Now as UTC wall time, for comparing with timestamp columns (they hold UTC, as the adapter and
 * Prisma write them, whatever the database session's time zone).
 */
function utcNow(offsetMs = 0): string {
  return new Date(Date.now() + offsetMs).toISOString();
}

/** Session uids are oidc-provider's nanoids. */
const UID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The public id of a session: its uid is never shown (it binds refresh tokens to the session). */
function publicId(uid: string): string {
  return createHash("sha256").update(`sign-in-session:${uid}`).digest("base64url").slice(0, 16);
}

/** Browser and OS named from a user agent (bowser), each "" when it does not say. */
export function describeUserAgent(userAgent: string): { browser: string; os: string } {
  if (!userAgent.trim()) return { browser: "", os: "" };
  try {
    const parsed = Bowser.parse(userAgent);
    const majorOf = (version: string | undefined) => version?.split(".")[0] ?? "";
    const browser = [parsed.browser.name, majorOf(parsed.browser.version)].filter(Boolean).join(" ");
    const osVersion = parsed.os.name === "macOS" || parsed.os.name === "Linux" ? "" : (parsed.os.versionName ?? parsed.os.version ?? "");
    const os = [parsed.os.name, osVersion].filter(Boolean).join(" ");
    return { browser, os };
  } catch {
    return { browser: "", os: "" };
  }
}

/** "Chrome 131 on macOS", for notices and the audit log. */
export function deviceLabel(userAgent: string): string {
  const { browser, os } = describeUserAgent(userAgent);
  if (browser && os) return `${browser} on ${os}`;
  return browser || os || "an unknown browser";
}

function clampUserAgent(userAgent: string | undefined): string {
  return (userAgent ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, MAX_USER_AGENT);
}

/**
 * The sign-in service answered an authorization with this session (lib/oidc/provider.ts): the
 * session is listed for its account, with this browser and network, active now.
 */
export async function recordSignInSessionActivity(input: { uid: string; userId: number; userAgent?: string; address?: string }): Promise<void> {
  if (!UID_PATTERN.test(input.uid)) return;
  const userAgent = clampUserAgent(input.userAgent);
  const addressPrefix = maskAddress(input.address);
  // A browser session signed in to another account is that account's session from now on.
  await upsertSignInSessionActivity({ uid: input.uid, userId: input.userId, userAgent, addressPrefix });
}

interface LiveRow {
  uid: string;
  userAgent: string;
  addressPrefix: string;
  createdAt: Date;
  lastActiveAt: Date;
}

/** The person's sign-in sessions that still exist at the sign-in service, most recently active first. */
async function liveSessionRows(userId: number, client: Pick<Tx, "$queryRaw"> = db): Promise<LiveRow[]> {
  return client.$queryRaw<LiveRow[]>`
    SELECT s.uid, s."userAgent", s."addressPrefix", s."createdAt", s."lastActiveAt"
    FROM "SignInSession" s
    JOIN "OidcModel" m ON m.kind = 'Session' AND m.uid = s.uid AND (m."expiresAt" IS NULL OR m."expiresAt" > ${utcNow()}::timestamp(3))
      AND m.payload->>'accountId' = ${String(userId)}
    WHERE s."userId" = ${userId}
    ORDER BY s."lastActiveAt" DESC, s.uid`;
}

/**
 * Account security and `users sessions`: where the person is signed in, most recently active first
 * after the asking portal session's own (`currentUid`), as GitHub lists "Your current session" first.
 */
export async function listSignInSessions(userId: number, currentUid?: string | null): Promise<SignInSessionView[]> {
  const rows = await liveSessionRows(userId);
  const current = rows.filter((row) => row.uid === currentUid);
  return [...current, ...rows.filter((row) => row.uid !== currentUid)].map((row) => ({
    id: publicId(row.uid),
    createdAt: row.createdAt,
    lastActiveAt: row.lastActiveAt,
    userAgent: row.userAgent,
    ...describeUserAgent(row.userAgent),
    addressPrefix: row.addressPrefix,
    current: row.uid === currentUid,
  }));
}

/**
 * Ends sign-in sessions in the caller's transaction: their OidcModel rows and listing rows go, and
 * every process hears it (`session`). `uids` null: all of the person's sessions. Returns how many
 * sessions ended. Grants and their refresh tokens are not touched (Connected apps revokes those).
 */
export async function endSignInSessionsIn(tx: Tx, userId: number, uids: string[] | null): Promise<number> {
  const ended =
    uids === null
      ? await tx.$executeRaw`DELETE FROM "OidcModel" WHERE kind = 'Session' AND payload->>'accountId' = ${String(userId)}`
      : uids.length === 0
        ? 0
        : await tx.$executeRaw`DELETE FROM "OidcModel" WHERE kind = 'Session' AND uid = ANY(${uids}) AND payload->>'accountId' = ${String(userId)}`;
  await tx.signInSession.deleteMany({ where: uids === null ? { userId } : { userId, uid: { in: uids } } });
  await publishChange(tx, { kind: "session", userId });
  return ended;
}

export type SignOutScope = { session: string } | { allExcept: string | null };

/**
 * "Sign out" (one session, by its public id), "Sign out everywhere else" (every session but the
 * asking one) and `users sign-out` (all, or one). Audited; returns how many sessions ended. An id
 * that names none of the person's live sessions is `not_found`.
 */
export async function signOutSessions(
  user: { id: number; handle: string },
  scope: SignOutScope,
  actor: Actor,
  currentUid?: string | null,
): Promise<{ ended: number }> {
  return transactionWithChanges(async (tx) => {
    const live = await liveSessionRows(user.id, tx);
    let uids: string[];
    if ("session" in scope) {
      const found = live.find((row) => publicId(row.uid) === scope.session);
      if (!found) throw new AppError("not_found", "No such sign-in session: it may have ended already.");
      uids = [found.uid];
    } else {
      uids = live.map((row) => row.uid).filter((uid) => uid !== scope.allExcept);
    }
    const ended = await endSignInSessionsIn(tx, user.id, uids);
    await recordAudit(
      {
        actor,
        action: "user.session.sign_out",
        targetType: "user",
        targetId: user.handle,
        detail: {
          scope: "session" in scope ? "one" : scope.allExcept ? "everywhere_else" : "all",
          sessions_ended: ended,
          ...("session" in scope ? { session: scope.session, this_device: uids[0] === currentUid } : {}),
        },
      },
      tx,
    );
    return { ended };
  });
}

/**
 * A sign-in from a browser that holds no trusted-device cookie for the account (issue 24,
 * lib/oidc/trusted-device.ts) is a new device: it is audited, and the person is told (a `security`
 * notice naming the browser and the network, never the address) unless it is the account's first
 * (lib/queries/sign-in-sessions.ts).
 */
export async function noticeNewDevice(input: { userId: number; handle: string; userAgent?: string; address?: string }): Promise<void> {
  const userAgent = clampUserAgent(input.userAgent);
  const device = deviceLabel(userAgent);
  const network = maskAddress(input.address);
  const message =
    `A new device signed in to your account: ${device}${network ? ` (network ${network})` : ""}. ` +
    "If this was not you, sign that session out on Account security and set up a second factor.";
  // The notice and its audit entry (actor and target the person, as recordAudit would write them) in one statement.
  await insertNewDeviceNotice({ userId: input.userId, handle: input.handle, message, detail: { device, network }, ip: input.address ?? null });
}

/** The sign-in session a portal sign-in came from: the session its refresh token is bound to. */
export async function findSessionUidOfRefreshToken(refreshToken: string): Promise<string | null> {
  if (!/^[\x21-\x7e]{1,512}$/.test(refreshToken)) return null;
  // The row key of a bearer value, as lib/oidc/adapter.ts bearerRowKey writes it.
  const key = `sha256:${createHash("sha256").update(refreshToken).digest("base64url")}`;
  const rows = await db.$queryRaw<{ uid: string | null }[]>`
    SELECT payload->>'sessionUid' AS uid FROM "OidcModel" WHERE kind = 'RefreshToken' AND id = ${key}`;
  const uid = rows[0]?.uid;
  return uid && UID_PATTERN.test(uid) ? uid : null;
}

interface LiveEntry {
  userId: number;
  live: Promise<boolean>;
}

const liveCache = new LRUCache<string, LiveEntry>({ max: 50_000, ttl: LIVE_CACHE_TTL_MS });
const lastActivityWrite = new LRUCache<string, number>({ max: 50_000, ttl: ACTIVITY_WRITE_INTERVAL_MS });

onChange((event) => {
  if (event.kind === "all") liveCache.clear();
  else if (event.kind === "session" || event.kind === "user") {
    for (const [uid, entry] of liveCache.entries()) if (entry.userId === event.userId) liveCache.delete(uid);
  }
});

async function readLive(uid: string, userId: number): Promise<boolean> {
  const rows = await db.$queryRaw<{ live: boolean }[]>`
    SELECT EXISTS (
      SELECT 1 FROM "OidcModel" WHERE kind = 'Session' AND uid = ${uid}
        AND ("expiresAt" IS NULL OR "expiresAt" > ${utcNow()}::timestamp(3)) AND payload->>'accountId' = ${String(userId)}
    ) AS live`;
  return rows[0]?.live === true;
}

/**
 * Whether a portal session's sign-in session still exists (lib/portal/session.ts). A live answer is
 * cached for LIVE_CACHE_TTL_MS unless the change channel says the person's sessions changed; an
 * ended one is not cached (a session never comes back, and the portal signs the browser out). The
 * portal's use counts as the session's activity, written at most every few minutes.
 */
export async function isSignInSessionLive(uid: string, userId: number): Promise<boolean> {
  if (!UID_PATTERN.test(uid)) return false;
  let entry = liveCache.get(uid);
  if (!entry || entry.userId !== userId) {
    const live = readLive(uid, userId);
    entry = { userId, live };
    liveCache.set(uid, entry);
    live.then(
      (isLive) => {
        if (!isLive && liveCache.get(uid) === entry) liveCache.delete(uid);
      },
      () => {
        if (liveCache.get(uid) === entry) liveCache.delete(uid);
      },
    );
  }
  const live = await entry.live;
  if (live && !lastActivityWrite.has(uid)) {
    lastActivityWrite.set(uid, Date.now());
    db.signInSession
      .updateMany({ where: { uid, userId }, data: { lastActiveAt: new Date() } })
      .catch((error: unknown) => logger.warn("sign-in session activity not written", { error: (error as Error).message }));
  }
  return live;
}

/** The expired-records clean-up: listing rows whose session is gone. */
export async function deleteEndedSignInSessions(): Promise<number> {
  return db.$executeRaw`
    DELETE FROM "SignInSession" s WHERE NOT EXISTS (
      SELECT 1 FROM "OidcModel" m WHERE m.kind = 'Session' AND m.uid = s.uid AND (m."expiresAt" IS NULL OR m."expiresAt" > ${utcNow()}::timestamp(3))
    ) AND s."lastActiveAt" < ${utcNow(-60_000)}::timestamp(3)`;
}
