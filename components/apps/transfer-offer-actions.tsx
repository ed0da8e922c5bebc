"use client";

import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { answerTransferAction } from "@/lib/actions/app-members";

const ACCEPTED = {
  applied: (name: string) => `You now own ${name}`,
  awaiting_review: (name: string) => `Accepted ${name}: you become its owner once an admin approves the change`,
} as const;

/** Accept or decline an app offered to you; the service decides what acceptance leads to. */
export function TransferOfferActions({ clientId, name }: { clientId: string; name: string }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();

  function answer(accept: boolean) {
    startTransition(async () => {
      const result = await answerTransferAction(clientId, accept);
      if (!result.ok) {
        toast.error(result.error.message);
        router.refresh();
        return;
      }
      const { outcome } = result.data;
      toast.success(outcome === "applied" || outcome === "awaiting_review" ? ACCEPTED[outcome](name) : `Declined ${name}`);
      router.refresh();
    });
  }

  return (
    <div className="flex shrink-0 flex-wrap gap-2">
      <Button size="sm" loading={pending} onClick={() => answer(true)} aria-label={`Accept ${name}`}>
        Accept
      </Button>
      <Button size="sm" variant="secondary" disabled={pending} onClick={() => answer(false)} aria-label={`Decline ${name}`}>
        Decline
      </Button>
    </div>
  );
}
