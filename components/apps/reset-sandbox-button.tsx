"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { resetSandboxAction } from "@/lib/actions/sandboxes";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";

/** "Reset sandbox" behind a confirmation: the synthetic world is thrown away and generated again. */
export function ResetSandboxButton({ clientId }: { clientId: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [pending, startTransition] = useTransition();

  function reset() {
    startTransition(async () => {
      const result = await resetSandboxAction(clientId);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setOpen(false);
      toast.success(`Sandbox reset: ${result.data.people} synthetic people, fresh chat and notifications`);
      router.refresh();
    });
  }

  return (
    <>
      <Button variant="danger-outline" onClick={() => setOpen(true)}>
        <Icon name="refresh" /> Reset sandbox
      </Button>
      <Dialog
        open={open}
        onClose={() => (pending ? undefined : setOpen(false))}
        title="Reset the sandbox?"
        description="Every synthetic person, friendship, notification and chat message of this sandbox — including what your app posted there — is deleted and generated again. Live data is not touched. It cannot be undone."
        footer={
          <>
            <Button variant="secondary" onClick={() => setOpen(false)} disabled={pending}>
              Cancel
            </Button>
            <Button variant="danger" onClick={reset} loading={pending}>
              Reset sandbox
            </Button>
          </>
        }
      />
    </>
  );
}
