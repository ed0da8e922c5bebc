"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";
import { revokeConnectedAppAction } from "@/lib/actions/connected-apps";

/** "Revoke access", confirmed in a dialog that says what happens (as Google's and GitHub's account pages do). */
export function RevokeAppButton({
  handle,
  clientId,
  appName,
  forSomeoneElse,
}: {
  handle: string;
  clientId: string;
  appName: string;
  /** An admin revoking for another person: the copy names them. */
  forSomeoneElse: boolean;
}) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [pending, startTransition] = useTransition();

  function revoke() {
    startTransition(async () => {
      const result = await revokeConnectedAppAction(handle, clientId);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setOpen(false);
      toast.success(`Access revoked: ${appName}`);
      router.refresh();
    });
  }

  const who = forSomeoneElse ? `@${handle}` : "you";
  return (
    <>
      <Button variant="danger-outline" size="sm" onClick={() => setOpen(true)}>
        <Icon name="ban" /> Revoke access<span className="sr-only"> of {appName}</span>
      </Button>
      <Dialog
        open={open}
        onClose={() => (pending ? undefined : setOpen(false))}
        title={`Revoke ${appName}'s access?`}
        description={
          <>
            {appName} is signed out at once: every access token and refresh token it holds for {who} stops working now.
            If {who} {forSomeoneElse ? "signs" : "sign"} in to it again, the platform asks for consent again.
          </>
        }
        footer={
          <>
            <Button variant="secondary" onClick={() => setOpen(false)} disabled={pending}>
              Cancel
            </Button>
            <Button variant="danger" onClick={revoke} loading={pending}>
              Revoke access
            </Button>
          </>
        }
      />
    </>
  );
}
