"use client";

import { useState, useTransition } from "react";
import { toast } from "sonner";
import { regenerateSecretAction } from "@/app/(portal)/apps/[clientId]/actions";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";
import { SecretReveal } from "./secret-reveal";

/**
 * The client secret of an approved API client as its owner sees it: the one-time reveal (first
 * view after approval, or after "Regenerate"), otherwise only the hint and the regenerate button.
 */
export function ClientSecretPanel({
  clientId,
  initialSecret,
  secretHint,
  secretCreatedAt,
  canRegenerate,
}: {
  clientId: string;
  initialSecret: string | null;
  secretHint: string | null;
  secretCreatedAt: string | null;
  canRegenerate: boolean;
}) {
  const [secret, setSecret] = useState(initialSecret);
  const [hint, setHint] = useState(secretHint);
  const [createdAt, setCreatedAt] = useState(secretCreatedAt);
  const [confirming, setConfirming] = useState(false);
  const [pending, startTransition] = useTransition();

  function regenerate() {
    startTransition(async () => {
      const result = await regenerateSecretAction(clientId);
      setConfirming(false);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setSecret(result.data.clientSecret);
      setHint(result.data.secretHint);
      setCreatedAt(new Date().toISOString());
      toast.success("New secret generated. The old one no longer works.");
    });
  }

  return (
    <div className="space-y-4">
      {secret ? <SecretReveal key={secret} secret={secret} onDone={() => setSecret(null)} /> : null}
      <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
        <div>
          <p className="text-sm font-medium text-slate-700">Client secret</p>
          <p className="mt-1 font-mono text-sm text-slate-900" data-testid="secret-hint">
            {hint ? `••••••••••••••••${hint}` : "Not generated yet"}
          </p>
          {createdAt ? (
            <p className="mt-1 text-xs text-slate-600">
              Created {new Date(createdAt).toISOString().slice(0, 16).replace("T", " ")} UTC
            </p>
          ) : null}
        </div>
        {canRegenerate ? (
          <Button variant="secondary" onClick={() => setConfirming(true)}>
            <Icon name="refresh" /> Regenerate secret
          </Button>
        ) : null}
      </div>
      <Dialog
        open={confirming}
        onClose={() => (pending ? undefined : setConfirming(false))}
        title="Regenerate the client secret?"
        description={
          <>
            The current secret stops working immediately and every access token issued with it is revoked. Anything
            still using it will fail with <code className="font-mono">invalid_client</code> until you deploy the new one.
          </>
        }
        footer={
          <>
            <Button variant="secondary" onClick={() => setConfirming(false)} disabled={pending}>
              Cancel
            </Button>
            <Button variant="danger" onClick={regenerate} loading={pending}>
              Regenerate secret
            </Button>
          </>
        }
      />
    </div>
  );
}
