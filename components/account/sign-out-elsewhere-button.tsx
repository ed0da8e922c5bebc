"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";
import { signOutOtherSessionsAction } from "@/lib/actions/sign-in-sessions";

/** "Sign out everywhere else", confirmed in a dialog that says what it does and does not do. */
export function SignOutElsewhereButton({ others }: { others: number }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [pending, startTransition] = useTransition();

  function signOut() {
    startTransition(async () => {
      const result = await signOutOtherSessionsAction();
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setOpen(false);
      toast.success(result.data.ended === 1 ? "Signed out of 1 other session" : `Signed out of ${result.data.ended} other sessions`);
      router.refresh();
    });
  }

  return (
    <>
      <Button variant="danger-outline" size="sm" onClick={() => setOpen(true)}>
        <Icon name="logout" /> Sign out everywhere else
      </Button>
      <Dialog
        open={open}
        onClose={() => (pending ? undefined : setOpen(false))}
        title="Sign out everywhere else?"
        description={
          <>
            {others === 1 ? "Your other session ends" : `Your ${others} other sessions end`} at once, in the portal and at the sign-in
            service: those browsers must sign in again. This browser stays signed in. Apps you allowed keep their access: revoke that
            on Connected apps.
          </>
        }
        footer={
          <>
            <Button variant="secondary" onClick={() => setOpen(false)} disabled={pending}>
              Cancel
            </Button>
            <Button variant="danger" onClick={signOut} loading={pending}>
              Sign out everywhere else
            </Button>
          </>
        }
      />
    </>
  );
}
