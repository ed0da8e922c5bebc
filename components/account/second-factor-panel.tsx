"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { toast } from "sonner";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { AccountProofForm, type AccountProof, type ProofKind } from "./account-proof-form";
import { Field, inputClasses } from "@/components/ui/field";
import { confirmTotpEnrolmentAction, removeTotpAction, startTotpEnrolmentAction } from "@/lib/actions/second-factors";
import { IssuedRecoveryCodes } from "./recovery-codes";

type Enrolment = { secret: string; uri: string; qrSvg: string };

/**
 * Account security's authenticator app: set it up (the password or a current code first, so a
 * borrowed session cannot add one; then the QR code or the key by hand, confirmed with a code; the
 * recovery codes it brings are shown once), remove it (asks for a current code or the password). The recovery codes' own card is recovery-codes.tsx. Everything is decided by the
 * actions and the service.
 */
export function SecondFactorPanel({
  handle,
  totp,
  enrolledAt,
  canUseCode,
  required,
}: {
  handle: string;
  totp: boolean;
  enrolledAt: string | null;
  /** The account has recovery codes (from a passkey): one of them may prove the set-up. */
  canUseCode: boolean;
  /** Sent here because REQUIRE_MFA asks this account for a second factor. */
  required: boolean;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [proving, setProving] = useState<ProofKind | null>(null);
  const [proofError, setProofError] = useState<string | undefined>();
  const [codeError, setCodeError] = useState<string | undefined>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [removing, setRemoving] = useState<ProofKind | null>(null);
  const [removeError, setRemoveError] = useState<string | undefined>();

  function start(proof: AccountProof) {
    startTransition(async () => {
      const result = await startTotpEnrolmentAction(proof);
      if (!result.ok) return void setProofError(result.error.message);
      setProving(null);
      setProofError(undefined);
      setEnrolment(result.data);
      setCodeError(undefined);
    });
  }

  function confirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get("code") ?? "");
    startTransition(async () => {
      const result = await confirmTotpEnrolmentAction(code);
      if (!result.ok) return void setCodeError(result.error.fields?.code ?? result.error.message);
      setEnrolment(null);
      setRecoveryCodes(result.data.recoveryCodes);
      toast.success("Authenticator app set up");
      router.refresh();
    });
  }

  function remove(proof: AccountProof) {
    startTransition(async () => {
      const result = await removeTotpAction(proof);
      if (!result.ok) return void setRemoveError(result.error.message);
      setRemoving(null);
      setRemoveError(undefined);
      setRecoveryCodes(null);
      toast.success("Authenticator app removed");
      router.refresh();
    });
  }

  return (
    <div className="space-y-6">
      {required ? (
        <Alert tone="warning">Your account needs a second factor before you can continue: set up an authenticator app or add a passkey below.</Alert>
      ) : null}
      {recoveryCodes ? <IssuedRecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} /> : null}

      <Card
        id="authenticator"
        title={
          <span className="flex flex-wrap items-center gap-2">
            Authenticator app {totp ? <Badge tone="green" dot>On</Badge> : <Badge>Off</Badge>}
          </span>
        }
        description="An app such as Google Authenticator, 1Password or Authy shows a new 6-digit code every 30 seconds."
      >
        <div className="space-y-4">
          {totp ? (
            <>
              <p className="text-sm text-slate-700">
                Set up {enrolledAt ? <time dateTime={enrolledAt}>{new Date(enrolledAt).toUTCString().slice(5, 16)}</time> : null}. Signing in
                as @{handle} asks for a code after your password.
              </p>
              <div className="flex flex-wrap gap-3">
                <Button variant="danger-outline" size="sm" onClick={() => setRemoving("code")} disabled={pending}>
                  Remove authenticator app
                </Button>
              </div>
              {removing ? (
                <AccountProofForm
                  id="remove-proof"
                  label="Remove authenticator app"
                  kind={removing}
                  canUseCode
                  error={removeError}
                  pending={pending}
                  submitLabel="Remove"
                  onSubmit={remove}
                  onSwitch={(kind) => {
                    setRemoving(kind);
                    setRemoveError(undefined);
                  }}
                  onCancel={() => setRemoving(null)}
                />
              ) : null}
            </>
          ) : enrolment ? (
            <div className="space-y-4">
              <p className="text-sm text-slate-700">Scan this QR code with your authenticator app, or type the key into it by hand.</p>
              <div className="flex flex-col gap-4 sm:flex-row sm:items-start">
                <div
                  role="img"
                  aria-label="QR code for your authenticator app"
                  className="size-44 shrink-0 rounded-lg bg-white p-1 ring-1 ring-slate-200"
                  dangerouslySetInnerHTML={{ __html: enrolment.qrSvg }}
                />
                <div className="min-w-0 space-y-2">
                  <p className="text-sm font-medium text-slate-900">Key</p>
                  <div className="flex items-center gap-2">
                    <code data-testid="totp-secret" className="min-w-0 rounded-md bg-slate-50 px-2 py-1 font-mono text-sm break-all ring-1 ring-slate-200">
                      {enrolment.secret}
                    </code>
                    <CopyButton value={enrolment.secret} label="Copy key" />
                  </div>
                  <p className="text-sm text-slate-600">Time-based, 6 digits, every 30 seconds.</p>
                </div>
              </div>
              <form onSubmit={confirm} className="space-y-3">
                <Field id="totp-code" label="Code from the app" error={codeError}>
                  <input
                    id="totp-code"
                    name="code"
                    type="text"
                    inputMode="numeric"
                    autoComplete="one-time-code"
                    pattern="[0-9 ]{6,7}"
                    required
                    maxLength={7}
                    aria-invalid={codeError ? true : undefined}
                    aria-describedby={codeError ? "totp-code-error" : undefined}
                    className={`${inputClasses} max-w-40`}
                  />
                </Field>
                <div className="flex flex-wrap gap-3">
                  <Button type="submit" size="sm" loading={pending}>
                    Turn on
                  </Button>
                  <Button type="button" variant="ghost" size="sm" onClick={() => setEnrolment(null)} disabled={pending}>
                    Cancel
                  </Button>
                </div>
              </form>
            </div>
          ) : proving ? (
            <AccountProofForm
              id="totp-setup-proof"
              label="Set up authenticator app"
              kind={proving}
              canUseCode={canUseCode}
              error={proofError}
              pending={pending}
              submitLabel="Continue"
              tone="primary"
              onSubmit={start}
              onSwitch={(kind) => {
                setProving(kind);
                setProofError(undefined);
              }}
              onCancel={() => setProving(null)}
            />
          ) : (
            <Button
              size="sm"
              onClick={() => {
                setProving("password");
                setProofError(undefined);
              }}
            >
              Set up authenticator app
            </Button>
          )}
        </div>
      </Card>
    </div>
  );
}
