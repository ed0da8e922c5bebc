"use client";

import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { toast } from "sonner";
import { redeliverAction } from "@/lib/actions/webhooks";
import { Button } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";

/** "Redeliver" on one delivery of the log: the same event (same id) as a new first attempt. */
export function RedeliverButton({
  clientId,
  deliveryId,
  eventType,
  sandbox = false,
}: {
  clientId: string;
  deliveryId: string;
  eventType: string;
  /** A delivery of a sandbox endpoint. */
  sandbox?: boolean;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <Button
      size="sm"
      variant="secondary"
      loading={pending}
      aria-label={`Redeliver ${eventType} (${deliveryId})`}
      onClick={() =>
        startTransition(async () => {
          const result = await redeliverAction(clientId, deliveryId, sandbox);
          if (!result.ok) {
            toast.error(result.error.message);
            return;
          }
          toast.success("Redelivery queued: it shows at the top of the log.");
          router.refresh();
        })
      }
    >
      <Icon name="refresh" /> Redeliver
    </Button>
  );
}
