"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { regenerateRecoveryCodesAction } from "@/lib/actions/second-factors";

/**
 * Recovery codes just made (with the account's first second factor, or on request): shown once,
 * never readable again.
 */
export function IssuedRecoveryCodes({ codes, onDone }: { codes: string[]; onDone(): void }) {
  return (
    <Card
      title="Your recovery codes"
      description="Each code signs you in once if you lose your phone or your passkeys. Keep them somewhere safe: they are shown only now."
    >
      <div>
        <ul aria-label="Recovery codes" className="grid grid-cols-1 gap-2 font-mono text-sm sm:grid-cols-2">
          {codes.map((code) => (
            <li key={code} className="rounded-md bg-slate-50 px-3 py-1.5 ring-1 ring-slate-200">
              {code}
            </li>
          ))}
        </ul>
        <div className="mt-4 flex flex-wrap gap-3">
          <CopyButton value={codes.join("\n")} label="Copy recovery codes" showText />
          <Button variant="secondary" size="sm" onClick={onDone}>
            I have saved them
          </Button>
        </div>
      </div>
    </Card>
  );
}

/**
 * Account security's recovery codes, shown while the account has a second factor of any
 * kind: how many are left, and "Make new recovery codes" (the old ones stop working).
 */
export function RecoveryCodesCard({ left, total }: { left: number; total: number }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [codes, setCodes] = useState<string[] | null>(null);

  function regenerate() {
    startTransition(async () => {
      const result = await regenerateRecoveryCodesAction();
      if (!result.ok) return void toast.error(result.error.message);
      setCodes(result.data.recoveryCodes);
      router.refresh();
    });
  }

  if (codes) return <IssuedRecoveryCodes codes={codes} onDone={() => setCodes(null)} />;
  return (
    <Card
      id="recovery-codes"
      title="Recovery codes"
      description="If you lose your phone or your passkeys, type one of these where the sign-in asks for a code."
    >
      <div className="space-y-4">
        <p className="text-sm text-slate-700" id="recovery-left">
          {left} of {total} recovery codes left.
        </p>
        <Button variant="secondary" size="sm" onClick={regenerate} loading={pending}>
          Make new recovery codes
        </Button>
      </div>
    </Card>
  );
}
