"use client";

import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { toast } from "sonner";
import { setUserDisabledAction, setUserMutedAction } from "@/app/(portal)/admin/actions";
import { Button } from "@/components/ui/button";

/** Disable/enable and mute/unmute one account; the server checks the admin role and audits. */
export function UserActions({ handle, disabled, muted, isSelf }: { handle: string; disabled: boolean; muted: boolean; isSelf: boolean }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();

  function run(kind: "disable" | "mute", value: boolean) {
    startTransition(async () => {
      const result = kind === "disable" ? await setUserDisabledAction(handle, value) : await setUserMutedAction(handle, value);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      const verb = kind === "disable" ? (value ? "Disabled" : "Enabled") : value ? "Muted" : "Unmuted";
      toast.success(`${verb} @${handle}`);
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
        onClick={() => run("disable", !disabled)}
        aria-label={`${disabled ? "Enable" : "Disable"} @${handle}`}
        title={isSelf && !disabled ? "You cannot disable your own account" : undefined}
      >
        {disabled ? "Enable" : "Disable"}
      </Button>
    </div>
  );
}
