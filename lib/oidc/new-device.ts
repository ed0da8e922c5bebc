import type { IncomingMessage } from "node:http";
import { env } from "../env";
import { clientIp } from "../http/client-ip";
import { logger } from "../logger";
import { noticeNewDevice } from "../services/sign-in-sessions";

/**
 * A live account whose password was given in a browser without its trusted-device cookie
 * (./trusted-device.ts; the sign-in sets one once it has succeeded, after the second factor where
 * the account has one) is told so, and it is audited. `trustedDevice` is what findTrustedDevice found for the account before the sign-in.
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
