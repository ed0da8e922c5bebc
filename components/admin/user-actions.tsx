"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { setUserDisabledAction, setUserMutedAction } from "@/lib/actions/admin";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/**
 * Disable/enable and mute/unmute one account; the server checks the admin role and audits.
 * Disabling asks first and says what it does to the person's tokens (lib/services/users.ts).
 */
export function UserActions({ handle, disabled, muted, isSelf }: { handle: string; disabled: boolean; muted: boolean; isSelf: boolean }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [confirming, setConfirming] = useState(false);

  function run(kind: "disable" | "mute", value: boolean) {
    startTransition(async () => {
      const result = kind === "disable" ? await setUserDisabledAction(handle, value) : await setUserMutedAction(handle, value);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setConfirming(false);
      const verb = kind === "disable" ? (value ? "Disabled" : "Enabled") : value ? "Muted" : "Unmuted";
      toast.success(`${verb} @${handle}`, {
        description:
          kind !== "disable"
            ? undefined
            : value
              ? "API calls with their tokens now answer 403 forbidden."
              : "They can sign in again, and their unexpired tokens work again.",
      });
      router.refresh();
    });
  }

  return (
    <div className="flex flex-wrap gap-2 md:justify-end">
      <Button
        size="sm"
        variant="secondary"
        disabled={pending}
        onClick={() => run("mute", !muted)}
        aria-label={`${muted ? "Unmute" : "Mute"} @${handle}`}
      >
        {muted ? "Unmute" : "Mute"}
      </Button>
      <Button
        size="sm"
        variant={disabled ? "secondary" : "danger-outline"}
        disabled={pending || (isSelf && !disabled)}
        onClick={() => (disabled ? run("disable", false) : setConfirming(true))}
        aria-label={`${disabled ? "Enable" : "Disable"} @${handle}`}
        title={
          isSelf && !disabled
            ? "You cannot disable your own account"
            : disabled
              ? "They can sign in again, and their unexpired tokens work again"
              : undefined
        }
      >
        {disabled ? "Enable" : "Disable"}
      </Button>
      <Dialog
        open={confirming}
        onClose={() => (pending ? undefined : setConfirming(false))}
        title={`Disable @${handle}?`}
        description={
          <>
            They can no longer sign in or refresh tokens, and every API call with their access tokens answers{" "}
            <code className="font-mono">403 forbidden</code> at once, in every app. Their tokens are not deleted: enabling
            the account again makes the unexpired ones work again.
          </>
        }
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirming(false)} disabled={pending}>
              Cancel
            </Button>
            <Button variant="danger" onClick={() => run("disable", true)} loading={pending}>
              Disable account
            </Button>
          </>
        }
      />
    </div>
  );
}
