import { MAX_CONCURRENT_HASHES } from "../crypto/passwords";
import { env } from "../env";

/**
 * The password-check gate ("sign-in that cannot be stalled"): every sign-in's password
 * hash, known user or not (an unknown one hashes a dummy), passes here after the throttle admitted
 * the attempt (lib/services/throttle.ts, lib/oidc/account.ts).
 * - At most one check in flight per client (address, or IPv6 network: throttleKeyOf): a client
 *   that sends a hundred guesses at once holds one place in line, not a hundred.
 * - The line is bounded (PASSWORD_CHECK_QUEUE) and nobody waits in it longer than
 *   PASSWORD_CHECK_MAX_WAIT_MS: beyond either, the check is not made and the login page answers
 *   503 with Retry-After. Waiting costs no CPU, so the rest of the process (API, tokens, pages) does
 *   not slow down; the hashes themselves run on libuv's thread pool (lib/crypto/passwords.ts).
 * - Who goes next: the client with the fewest attempts in the throttle's window (a spraying address
 *   goes behind a person trying once); among equals, first come first served, until someone has
 *   waited CONGESTED_AFTER_MS: then the line is overloaded and the newest goes first (adaptive LIFO,
 *   as Facebook's queueing does), since the oldest will run out of time anyway and the newest can
 *   still be answered in time. A full line makes room for a newcomer with fewer attempts by turning
 *   away the waiter with the most.
 */

/** Checks past the gate at once: the hash slots (the gate holds the hash only, not the user row's lookup). */
const MAX_IN_FLIGHT = MAX_CONCURRENT_HASHES;
/** Beyond this wait by anyone, the line counts as overloaded (newest first among equals). */
const CONGESTED_AFTER_MS = 500;

export type PasswordCheckOutcome<T> = { ok: true; value: T } | { ok: false; retryAfterSeconds: number };

interface Waiter {
  key: string;
  priority: number;
  seq: number;
  enqueuedAt: number;
  start: () => void;
  refuse: () => void;
}

const inFlight = new Set<string>();
const line: Waiter[] = [];
let seq = 0;

/** How long to tell a refused client to wait: the time the line needs to drain, at least 1 s. */
function retryAfterSeconds(): number {
  return Math.max(1, Math.ceil(env().PASSWORD_CHECK_MAX_WAIT_MS / 1000));
}

function removeWaiter(waiter: Waiter): boolean {
  const index = line.indexOf(waiter);
  if (index < 0) return false;
  line.splice(index, 1);
  return true;
}

/** The waiter to start next: the oldest of each client whose key has nothing in flight, best first. */
function nextWaiter(now: number): Waiter | undefined {
  const congested = line.length > 0 && now - Math.min(...line.map((w) => w.enqueuedAt)) > CONGESTED_AFTER_MS;
  const seen = new Set<string>();
  let best: Waiter | undefined;
  for (const waiter of line) {
    if (seen.has(waiter.key)) continue;
    seen.add(waiter.key);
    if (inFlight.has(waiter.key)) continue;
    if (
      !best ||
      waiter.priority < best.priority ||
      (waiter.priority === best.priority && (congested ? waiter.seq > best.seq : waiter.seq < best.seq))
    ) {
      best = waiter;
    }
  }
  return best;
}

function pump(): void {
  const now = performance.now();
  while (inFlight.size < MAX_IN_FLIGHT) {
    const waiter = nextWaiter(now);
    if (!waiter) return;
    removeWaiter(waiter);
    inFlight.add(waiter.key);
    waiter.start();
  }
}

/** The waiter a newcomer of `priority` may push out of a full line: the one with the most attempts, newest among those. */
function displaceable(priority: number): Waiter | undefined {
  let worst: Waiter | undefined;
  for (const waiter of line) if (!worst || waiter.priority > worst.priority || (waiter.priority === worst.priority && waiter.seq > worst.seq)) worst = waiter;
  return worst && worst.priority > priority ? worst : undefined;
}

/**
 * Runs `check` for the client `clientKey` (throttleKeyOf of its address) when its turn comes, or
 * answers that it will not be run (line full, or no turn within the wait). `attempts` is the
 * client's attempt count in the throttle's window, this one included: fewer goes first.
 */
export async function runPasswordCheck<T>(clientKey: string, attempts: number, check: () => Promise<T>): Promise<PasswordCheckOutcome<T>> {
  const { PASSWORD_CHECK_QUEUE, PASSWORD_CHECK_MAX_WAIT_MS } = env();
  if (line.length === 0 && inFlight.size < MAX_IN_FLIGHT && !inFlight.has(clientKey)) {
    inFlight.add(clientKey);
  } else {
    if (line.length >= PASSWORD_CHECK_QUEUE) {
      const pushedOut = displaceable(attempts);
      if (!pushedOut) return { ok: false, retryAfterSeconds: retryAfterSeconds() };
      removeWaiter(pushedOut);
      pushedOut.refuse();
    }
    const admitted = await new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        key: clientKey,
        priority: attempts,
        seq: ++seq,
        enqueuedAt: performance.now(),
        start: () => {
          clearTimeout(timer);
          resolve(true);
        },
        refuse: () => {
          clearTimeout(timer);
          resolve(false);
        },
      };
      const timer = setTimeout(() => {
        if (removeWaiter(waiter)) resolve(false);
      }, PASSWORD_CHECK_MAX_WAIT_MS);
      line.push(waiter);
      pump();
    });
    if (!admitted) return { ok: false, retryAfterSeconds: retryAfterSeconds() };
  }
  try {
    return { ok: true, value: await check() };
  } finally {
    inFlight.delete(clientKey);
    pump();
  }
}
