"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";
import { approveChangeAction, rejectChangeAction } from "@/lib/actions/admin";
import { rejectAppSchema } from "@/lib/schemas/apps";
import { ReasonPicker } from "./reason-picker";

const PRESETS = [
  "The new name or description could mislead people about who runs the app.",
  "Explain why the app needs the new scopes.",
  "The new redirect URI is not on a domain the app is known to use.",
] as const;

/**
 * Approve or refuse the change waiting on an approved app; refusing asks for a reason the
 * team sees. Both send the revision this page rendered: a change edited since is refused and shown
 * again.
 */
export function ChangeReviewActions({ clientId, name, revision }: { clientId: string; name: string; revision: number }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<string>();

  function approve() {
    startTransition(async () => {
      const result = await approveChangeAction(clientId, revision);
      if (!result.ok) {
        toast.error(result.error.message);
        if (result.error.code === "conflict") router.refresh();
        return;
      }
      toast.success(`Changes to ${name} approved`);
      router.refresh();
    });
  }

  function reject() {
    const parsed = rejectAppSchema.safeParse({ reason });
    if (!parsed.success) {
      setReasonError(parsed.error.issues[0]?.message);
      return;
    }
    setReasonError(undefined);
    startTransition(async () => {
      const result = await rejectChangeAction(clientId, { reason, revision });
      if (!result.ok) {
        if (result.error.fields?.reason) setReasonError(result.error.fields.reason);
        toast.error(result.error.message);
        if (result.error.code === "conflict") {
          setAsking(false);
          router.refresh();
        }
        return;
      }
      setAsking(false);
      setReason("");
      toast.success(`Changes to ${name} refused`);
      router.refresh();
    });
  }

  return (
    <div className="flex flex-wrap gap-2" data-revision={revision}>
      <Button onClick={approve} loading={pending && !asking}>
        <Icon name="check" /> Approve changes
      </Button>
      <Button variant="danger-outline" onClick={() => setAsking(true)}>
        Refuse changes
      </Button>
      <Dialog
        open={asking}
        onClose={() => (pending ? undefined : setAsking(false))}
        title={`Refuse the changes to ${name}?`}
        description="The app keeps running as approved. Its team sees your reason on the app page."
        footer={
          <>
            <Button variant="secondary" onClick={() => setAsking(false)} disabled={pending}>
              Cancel
            </Button>
            <Button variant="danger" onClick={reject} loading={pending}>
              Refuse changes
            </Button>
          </>
        }
      >
        <ReasonPicker presets={PRESETS} value={reason} onChange={setReason} error={reasonError} />
      </Dialog>
    </div>
  );
}
