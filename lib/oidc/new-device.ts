import type { IncomingMessage } from "node:http";
import { env } from "../env";
import { clientIp } from "../http/client-ip";
import { logger } from "../logger";
import { noticeNewDevice } from "../services/sign-in-sessions";

/**
 * Issue 29: a live account signed in from a browser without its trusted-device cookie (issue 24,
 * ./trusted-device.ts; the sign-in sets one right after) is told so, once per browser, and it is
 * audited. `trustedDevice` is what findTrustedDevice found for the account before the sign-in.
 * Never fails the sign-in: a notice that could not be written is logged.
 */
export async function noticeIfNewDevice(
  req: IncomingMessage,
  account: { userId: number; handle: string },
  trustedDevice: string | undefined,
): Promise<void> {
  if (trustedDevice) return;
  try {
    await noticeNewDevice({
      userId: account.userId,
      handle: account.handle,
      userAgent: req.headers["user-agent"],
      address: clientIp(req, env().TRUST_PROXY_RULE),
    });
  } catch (error) {
    logger.error("new-device notice not written", { error: (error as Error).message });
  }
}
