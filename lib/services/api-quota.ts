import { transactionWithChanges } from "../database/changes";
import { logger } from "../logger";
import { deleteApiQuotaWindowsBefore, reserveApiQuota } from "../queries/api-quota";
import type { AppView } from "../schemas/apps";
import { effectiveQuota, QUOTA_WINDOW_SECONDS, type RequestQuotaInput } from "../schemas/rate-limits";
import type { Actor } from "./actor";
import { notFound, requireReviewer } from "./app-access";
import { getAppForViewer } from "./apps";
import { recordAudit } from "./audit";

/**
 * The per-app API request quota (issue 16): at most `quota` requests per app in each minute window
 * (Unix minutes, the same for every process on synchronized clocks), over all processes.
 *
 * No database write per request: each process reserves requests in batches from the app's shared
 * counter (lib/queries/api-quota.ts, one atomic upsert that never hands out more than the quota)
 * and spends them locally. A batch is BATCH_FRACTION of the quota, so the only inexactness is the
 * reserved-but-unspent rest each process holds when the window ends: with two processes the app is
 * admitted at least 96 % of its quota and never more than all of it. A small quota reserves one
 * request at a time (exact). Concurrent requests of one app share one reservation in flight.
 *
 * If the database cannot be reached the request is admitted (logged once a window): the quota
 * protects the platform from one app's traffic, not the app from the database.
 */
export const BATCH_FRACTION = 0.02;
export const MAX_BATCH = 1_000;

export function quotaBatchSize(quota: number): number {
  return Math.max(1, Math.min(MAX_BATCH, Math.floor(quota * BATCH_FRACTION)));
}

interface Allowance {
  window: number;
  quota: number;
  /** Reserved by this process, not spent yet. */
  left: number;
  /** All processes' reservations in this window, as of this process's last reservation. */
  reserved: number;
  /** The shared counter said no: refuse without asking again until the window ends. */
  exhausted: boolean;
  refill: Promise<void> | null;
  failureLogged: boolean;
}

/** The quota's answer for one request: the limit in force, what remains and when it resets. */
export interface QuotaState {
  admitted: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends (at least 1). */
  resetSeconds: number;
  /** Unix seconds at which the window ends. */
  resetAt: number;
}

const allowances = new Map<string, Allowance>();
let sweptWindow = 0;

const currentWindow = (nowMs: number) => Math.floor(nowMs / 1000 / QUOTA_WINDOW_SECONDS);

async function refill(clientId: string, allowance: Allowance): Promise<void> {
  try {
    const { granted, reserved } = await reserveApiQuota(
      clientId,
      allowance.window,
      quotaBatchSize(allowance.quota),
      allowance.quota,
    );
    allowance.left += granted;
    allowance.reserved = reserved;
    if (granted === 0) allowance.exhausted = true;
  } catch (error) {
    if (!allowance.failureLogged) {
      allowance.failureLogged = true;
      logger.warn("api quota: reservation failed, admitting", { clientId, error: (error as Error).message });
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

/**
 * Counts one request of `clientId` against its quota; `admitted: false` when the window is used up.
 * Synchronous while this process holds reserved requests (the common case: no promise, no await),
 * a promise only when it must reserve more.
 */
export function admitApiRequest(clientId: string, quota: number): QuotaState | Promise<QuotaState> {
  const now = Date.now();
  const window = currentWindow(now);
  let allowance = allowances.get(clientId);
  // A request that started just before another opened the next window is counted there.
  if (!allowance || allowance.window < window) {
    allowance = { window, quota, left: 0, reserved: 0, exhausted: false, refill: null, failureLogged: false };
    allowances.set(clientId, allowance);
    sweep(window);
  }
  if (allowance.quota !== quota) {
    // An admin changed the quota (the access cache follows the change channel): ask again.
    allowance.quota = quota;
    allowance.exhausted = false;
  }
  if (allowance.left > 0 || allowance.exhausted) return spend(allowance, now);
  return reserveThenSpend(clientId, allowance, now);
}

async function reserveThenSpend(clientId: string, allowance: Allowance, now: number): Promise<QuotaState> {
  while (allowance.left <= 0 && !allowance.exhausted) {
    allowance.refill ??= refill(clientId, allowance).finally(() => {
      allowance.refill = null;
    });
    await allowance.refill;
  }
  return spend(allowance, now);
}

function spend(allowance: Allowance, now: number): QuotaState {
  const { quota } = allowance;
  const resetAt = (allowance.window + 1) * QUOTA_WINDOW_SECONDS;
  const resetSeconds = Math.max(1, Math.ceil(resetAt - now / 1000));
  const admitted = allowance.left > 0;
  if (admitted) allowance.left -= 1;
  const remaining = Math.max(0, Math.min(quota, quota - allowance.reserved + allowance.left));
  return { admitted, limit: quota, remaining, resetSeconds, resetAt };
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
