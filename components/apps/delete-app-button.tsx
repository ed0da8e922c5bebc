"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { toast } from "sonner";
import { deleteAppAction } from "@/lib/actions/apps";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";

/** Beyond this length the confirmation asks for the client ID rather than the name. */
const TYPED_NAME_MAX = 32;

/**
 * Delete with a typed confirmation, GitHub-style: it cannot be undone. The phrase is the app's name,
 * or its client ID when the name is long (nobody should retype 80 characters).
 */
export function DeleteAppButton({ clientId, name }: { clientId: string; name: string }) {
  const phrase = name.length <= TYPED_NAME_MAX ? name : clientId;
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [pending, startTransition] = useTransition();
  const inputId = useId();

  function remove() {
    startTransition(async () => {
      const result = await deleteAppAction(clientId);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setOpen(false);
      toast.success(`Deleted ${name}`);
      router.push("/apps");
      router.refresh();
    });
  }

  return (
    <>
      <Button variant="danger-outline" onClick={() => setOpen(true)}>
        <Icon name="trash" /> Delete application
      </Button>
      <Dialog
        open={open}
        onClose={() => (pending ? undefined : setOpen(false))}
        title={`Delete ${name}?`}
        description={
          <>
            This deletes the application and revokes every access token, refresh token and grant of it at once (API calls
            with them answer <code className="font-mono">401 invalid_token</code>), and forgets people&apos;s consent. It
            cannot be undone.
          </>
        }
        footer={
          <>
            <Button variant="secondary" onClick={() => setOpen(false)} disabled={pending}>
              Cancel
            </Button>
            <Button variant="danger" onClick={remove} loading={pending} disabled={typed.trim() !== phrase}>
              Delete application
            </Button>
          </>
        }
      >
        <label htmlFor={inputId} className="block text-sm text-slate-700">
          Type {phrase === name ? "the name" : "the client ID"}{" "}
          <strong className={`font-semibold break-all text-slate-900 ${phrase === name ? "" : "font-mono"}`}>{phrase}</strong> to confirm.
        </label>
        <input
          id={inputId}
          className={`${inputClasses} mt-2`}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
        />
      </Dialog>
    </>
  );
}
