"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * While the delivery log shows attempts still pending, re-renders the page from the server every
 * 2 seconds (router.refresh keeps client state, such as a secret being shown), so a delivery's
 * outcome appears without a reload. Stops once nothing is pending.
 */
export function RefreshWhilePending({ active }: { active: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => router.refresh(), 2000);
    return () => clearInterval(timer);
  }, [active, router]);
  return null;
}
