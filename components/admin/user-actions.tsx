"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { setUserDisabledAction, setUserMutedAction } from "@/lib/actions/admin";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { disableUserSchema } from "@/lib/schemas/users";
import { ReasonPicker } from "./reason-picker";

const DISABLE_PRESETS = [
  "Spam or abuse in the global chat.",
  "The account looks compromised; disabled until the owner confirms who they are.",
  "Automated or fake account.",
  "Asked by the account's owner.",
] as const;

const ENABLE_PRESETS = ["The owner confirmed who they are.", "Disabled by mistake.", "The suspension period is over."] as const;

/**
 * Disable/enable and mute/unmute one account; the server checks the admin role and audits. Both
 * disabling (a reason is required) and enabling (a note is optional) ask first and say what they
 * do to the person's tokens (lib/services/users.ts); the reason goes to the audit log.
 */
export function UserActions({ handle, disabled, muted, isSelf }: { handle: string; disabled: boolean; muted: boolean; isSelf: boolean }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<string>();

  function close() {
    if (pending) return;
    setConfirming(false);
    setReason("");
    setReasonError(undefined);
  }

  function toggleMute() {
    startTransition(async () => {
      const result = await setUserMutedAction(handle, !muted);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      toast.success(`${muted ? "Unmuted" : "Muted"} @${handle}`);
      router.refresh();
    });
  }

  function confirmDisabled() {
    const value = !disabled;
    if (value) {
      const parsed = disableUserSchema.safeParse({ reason });
      if (!parsed.success) {
        setReasonError(parsed.error.issues[0]?.message);
        return;
      }
    }
    startTransition(async () => {
      const result = await setUserDisabledAction(handle, value, { reason: reason.trim() });
      if (!result.ok) {
        if (result.error.fields?.reason) setReasonError(result.error.fields.reason);
        toast.error(result.error.message);
        return;
      }
      setConfirming(false);
      setReason("");
      toast.success(`${value ? "Disabled" : "Enabled"} @${handle}`, {
        description: value
          ? "API calls with their tokens now answer 403 forbidden. The reason is in the audit log."
          : "They can sign in again, and their unexpired tokens work again.",
      });
      router.refresh();
    });
  }

  return (
    <div className="flex flex-wrap gap-2 md:justify-end">
      <Button size="sm" variant="secondary" disabled={pending} onClick={toggleMute} aria-label={`${muted ? "Unmute" : "Mute"} @${handle}`}>
        {muted ? "Unmute" : "Mute"}
      </Button>
      <Button
        size="sm"
        variant={disabled ? "secondary" : "danger-outline"}
        disabled={pending || (isSelf && !disabled)}
        onClick={() => setConfirming(true)}
        aria-label={`${disabled ? "Enable" : "Disable"} @${handle}`}
        title={isSelf && !disabled ? "You cannot disable your own account" : undefined}
      >
        {disabled ? "Enable" : "Disable"}
      </Button>
      <Dialog
        open={confirming}
        onClose={close}
        title={disabled ? `Enable @${handle}?` : `Disable @${handle}?`}
        description={
          disabled ? (
            "They can sign in again, and their unexpired access tokens work again in every app."
          ) : (
            <>
              They can no longer sign in or refresh tokens, and every API call with their access tokens answers{" "}
              <code className="font-mono">403 forbidden</code> at once, in every app. Their tokens are not deleted: enabling
              the account again makes the unexpired ones work again. The reason is kept in the audit log.
            </>
          )
        }
        footer={
          <>
            <Button variant="secondary" onClick={close} disabled={pending}>
              Cancel
            </Button>
            <Button variant={disabled ? "primary" : "danger"} onClick={confirmDisabled} loading={pending}>
              {disabled ? "Enable account" : "Disable account"}
            </Button>
          </>
        }
      >
        <ReasonPicker
          presets={disabled ? ENABLE_PRESETS : DISABLE_PRESETS}
          value={reason}
          onChange={(value) => {
            setReason(value);
            setReasonError(undefined);
          }}
          error={reasonError}
          label={disabled ? "Note (optional)" : "Reason"}
          placeholder={disabled ? "Why the account is enabled again." : "Or write why; other admins read it in the audit log."}
        />
      </Dialog>
    </div>
  );
}
