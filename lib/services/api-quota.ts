import { transactionWithChanges } from "../database/changes";
import { logger } from "../logger";
import { env } from "../env";
import { deleteApiQuotaWindowsBefore, reserveApiQuota, reserveApiUserQuota } from "../queries/api-quota";
import type { AppView } from "../schemas/apps";
import { effectiveQuota, QUOTA_WINDOW_SECONDS, type RequestQuotaInput } from "../schemas/rate-limits";
import type { Actor } from "./actor";
import { notFound, requireReviewer } from "./app-access";
import { getAppForViewer } from "./apps";
import { recordAudit } from "./audit";

/**
 * The per-app API request quota: at most `quota` requests per app in each minute window
 * (Unix minutes, the same for every process on synchronized clocks), over all processes.
 * Each user's tokens of an app may use at most USER_QUOTA_PERCENT of it (`userShare`), so one
 * person cannot spend a login app's minute for all its users; a request over the user's share is
 * refused without spending anything of the app's.
 *
 * No database write per request: each process reserves requests in batches from the shared
 * counters (lib/queries/api-quota.ts, one atomic upsert each that never hands out more than the
 * quota; one row per app and window, one per app, user and window) and spends them locally. A batch
 * is BATCH_FRACTION of the quota, so the only inexactness is the reserved-but-unspent rest each
 * process holds when the window ends: with two processes the app is admitted at least 96 % of its
 * quota and never more than all of it. A small quota reserves one request at a time (exact).
 * Concurrent requests of one app (or user) share one reservation in flight.
 *
 * If the database cannot be reached the request is admitted (logged once a window): the quota
 * protects the platform from one app's traffic, not the app from the database.
 */
export const BATCH_FRACTION = 0.02;
export const MAX_BATCH = 1_000;

export function quotaBatchSize(quota: number): number {
  return Math.max(1, Math.min(MAX_BATCH, Math.floor(quota * BATCH_FRACTION)));
}

/** A user's share of an app's quota of `quota` requests a minute (at least one request). */
export function userShare(quota: number, percent = env().USER_QUOTA_PERCENT): number {
  return Math.max(1, Math.floor((quota * percent) / 100));
}

interface Allowance {
  window: number;
  quota: number;
  /** Reserved by this process, not spent yet. */
  left: number;
  /** All processes' reservations in this window, as of this process's last reservation. */
  reserved: number;
  /**
   * Admitted here without a reservation yet (a user's first batch of a window: see admitApiRequest);
   * claimed from the shared counter with the next reservation.
   */
  unrecorded: number;
  /** The shared counter said no: refuse without asking again until the window ends. */
  exhausted: boolean;
  refill: Promise<void> | null;
  failureLogged: boolean;
  /** An app's: its users' allowances of the same window (they go with it). Null on a user's. */
  users: Map<number, Allowance> | null;
}

/** The quota's answer for one request: the limits in force, what remains and when they reset. */
export interface QuotaState {
  admitted: boolean;
  /** Which limit refused the request (`app`: the app's quota, `user`: the user's share of it); null when admitted. */
  refusedBy: "app" | "user" | null;
  limit: number;
  remaining: number;
  /** Seconds until the window ends (at least 1). */
  resetSeconds: number;
  /** Unix seconds at which the window ends. */
  resetAt: number;
  /** The user's share (user-delegated tokens; 0 for an app-only token) and what remains of it. */
  userLimit: number;
  userRemaining: number;
}

const allowances = new Map<string, Allowance>();
let sweptWindow = 0;

const currentWindow = (nowMs: number) => Math.floor(nowMs / 1000 / QUOTA_WINDOW_SECONDS);

function newAllowance(window: number, quota: number, users: Map<number, Allowance> | null): Allowance {
  return { window, quota, left: 0, reserved: 0, unrecorded: 0, exhausted: false, refill: null, failureLogged: false, users };
}

type Reserve = (want: number, quota: number) => Promise<{ granted: number; reserved: number }>;

async function refill(allowance: Allowance, reserve: Reserve, what: Record<string, unknown>): Promise<void> {
  try {
    const claimed = allowance.unrecorded;
    const want = quotaBatchSize(allowance.quota);
    const { granted, reserved } = await reserve(claimed + want, allowance.quota);
    allowance.unrecorded = 0;
    allowance.left = Math.max(0, allowance.left + granted - claimed);
    allowance.reserved = reserved;
    if (granted < claimed + 1) allowance.exhausted = true;
  } catch (error) {
    if (!allowance.failureLogged) {
      allowance.failureLogged = true;
      logger.warn("api quota: reservation failed, admitting", { ...what, error: (error as Error).message });
    }
    allowance.left += quotaBatchSize(allowance.quota);
  }
}

/** Old windows' rows are useless: once a window per process, the ones older than an hour go. */
function sweep(window: number): void {
  if (window <= sweptWindow) return;
  sweptWindow = window;
  deleteApiQuotaWindowsBefore(window - 60).catch((error: unknown) =>
    logger.warn("api quota: sweeping old windows failed", { error: (error as Error).message }),
  );
}

/** Holds reserved requests, or knows the window is used up: no database needed to answer. */
const isReady = (a: Allowance) => a.left > 0 || a.exhausted;

/**
 * Counts one request of `clientId` (made for `userId`, when the token is user-delegated) against
 * its quota and the user's share of it; `admitted: false` when either is used up. Synchronous while
 * this process holds reserved requests (the common case: no promise, no await), a promise only
 * when it must reserve more.
 */
export function admitApiRequest(clientId: string, quota: number, userId?: number): QuotaState | Promise<QuotaState> {
  const now = Date.now();
  const window = currentWindow(now);
  let app = allowances.get(clientId);
  // A request that started just before another opened the next window is counted there.
  if (!app || app.window < window) {
    app = newAllowance(window, quota, new Map());
    allowances.set(clientId, app);
    sweep(window);
  }
  if (app.quota !== quota) {
    // An admin changed the quota (the access cache follows the change channel): ask again.
    app.quota = quota;
    app.exhausted = false;
  }
  if (userId === undefined) return isReady(app) ? spend(app, null, now) : reserveThenSpend(clientId, app, null, 0, now);
  const share = userShare(quota);
  let user = app.users!.get(userId);
  if (!user) {
    // A user's first batch of the window is admitted without a reservation, claimed with the next
    // one: most users make fewer requests than that, so the common case writes nothing. Across N
    // processes a user may get up to N batches (2 % of the share each) over it.
    user = newAllowance(app.window, share, null);
    user.left = user.unrecorded = quotaBatchSize(share);
    app.users!.set(userId, user);
  } else if (user.quota !== share) {
    user.quota = share;
    user.exhausted = false;
  }
  return isReady(user) && isReady(app) ? spend(app, user, now) : reserveThenSpend(clientId, app, user, userId, now);
}

async function reserveThenSpend(clientId: string, app: Allowance, user: Allowance | null, userId: number, now: number): Promise<QuotaState> {
  // The user's share first: a request over it is refused without reserving any of the app's.
  while (user && !isReady(user)) {
    const reserveUser: Reserve = (want, quota) => reserveApiUserQuota(clientId, userId, user!.window, want, quota);
    user.refill ??= refill(user, reserveUser, { clientId, userId }).finally(() => {
      user!.refill = null;
    });
    await user.refill;
  }
  if (user && user.left <= 0) return spend(app, user, now);
  while (!isReady(app)) {
    app.refill ??= refill(app, (want, quota) => reserveApiQuota(clientId, app.window, want, quota), { clientId }).finally(() => {
      app.refill = null;
    });
    await app.refill;
  }
  return spend(app, user, now);
}

const remainingOf = (a: Allowance) => Math.max(0, Math.min(a.quota, a.quota - a.reserved - a.unrecorded + a.left));

function spend(app: Allowance, user: Allowance | null, now: number): QuotaState {
  const resetAt = (app.window + 1) * QUOTA_WINDOW_SECONDS;
  const resetSeconds = Math.max(1, Math.ceil(resetAt - now / 1000));
  const refusedBy = user && user.left <= 0 ? "user" : app.left <= 0 ? "app" : null;
  if (refusedBy === null) {
    app.left -= 1;
    if (user) user.left -= 1;
  }
  return {
    admitted: refusedBy === null,
    refusedBy,
    limit: app.quota,
    remaining: remainingOf(app),
    resetSeconds,
    resetAt,
    userLimit: user ? user.quota : 0,
    userRemaining: user ? remainingOf(user) : 0,
  };
}

/**
 * Sets an app's quota (admins and the operator; `null` = the platform default). Audited, and
 * announced on the change channel so every process's access cache takes the new quota at once.
 */
export async function setAppRequestQuota(clientId: string, input: RequestQuotaInput, actor: Actor): Promise<AppView> {
  await requireReviewer(actor, "app.quota", clientId, "Only an admin can change an app's request quota.");
  await transactionWithChanges(async (tx, announce) => {
    const before = await tx.application.findUnique({ where: { clientId }, select: { requestsPerMinute: true } });
    if (!before) throw notFound(clientId);
    await tx.application.update({ where: { clientId }, data: { requestsPerMinute: input.perMinute } });
    await recordAudit(
      {
        actor,
        action: "app.quota",
        targetType: "app",
        targetId: clientId,
        detail: { from: effectiveQuota(before.requestsPerMinute), to: effectiveQuota(input.perMinute) },
      },
      tx,
    );
    await announce({ kind: "app", clientId });
  });
  return getAppForViewer(clientId, actor);
}
