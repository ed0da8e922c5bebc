"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { rollSandboxSecretAction } from "@/lib/actions/sandboxes";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";
import { SecretReveal } from "./secret-reveal";

/**
 * An API client's sandbox secret: it was shown once at registration; "Roll" makes a new
 * one, shown once here, and the old one (and every sandbox token) stops working at once. Never
 * touches the live secrets.
 */
export function SandboxSecretPanel({ clientId, canRoll }: { clientId: string; canRoll: boolean }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function roll() {
    startTransition(async () => {
      const result = await rollSandboxSecretAction(clientId);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setOpen(false);
      setSecret(result.data.clientSecret);
      router.refresh();
    });
  }

  return (
    <div className="space-y-4">
      {secret ? (
        <SecretReveal
          secret={secret}
          focus
          label="Sandbox client secret"
          inputTestId="sandbox-client-secret"
      testId="sandbox-secret-reveal"
          title="Your new sandbox secret — copy it now, it will not be shown again"
          note="We store only a hash of it. The previous sandbox secret and every sandbox token stopped working; your live secrets are unchanged."
          onDone={() => setSecret(null)}
        />
      ) : null}
      <p className="flex items-start gap-2 text-sm text-slate-600">
        <Icon name="lock" className="mt-0.5 size-4 shrink-0" />
        <span>
          The sandbox secret was shown once, when the app was registered. It works only with the sandbox client ID, only
          for sandbox data.{" "}
          {canRoll ? "Lost it? Roll it: a new one is shown once." : "Only the owner and team admins can roll it."}
        </span>
      </p>
      {canRoll ? (
        <>
          <Button variant="secondary" onClick={() => setOpen(true)}>
            <Icon name="refresh" /> Roll sandbox secret
          </Button>
          <Dialog
            open={open}
            onClose={() => (pending ? undefined : setOpen(false))}
            title="Roll the sandbox secret?"
            description="A new sandbox secret is shown once. The current one stops working at once, and every sandbox access token is revoked. Live secrets and live tokens are not affected."
            footer={
              <>
                <Button variant="secondary" onClick={() => setOpen(false)} disabled={pending}>
                  Cancel
                </Button>
                <Button onClick={roll} loading={pending}>
                  Roll sandbox secret
                </Button>
              </>
            }
          />
        </>
      ) : null}
    </div>
  );
}
