"use client";

import type { FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field, inputClasses } from "@/components/ui/field";

export type ProofKind = "code" | "password";

/**
 * The proof Account security asks for before a factor is removed (issue 29): a current code from
 * the authenticator app or the password (lib/services/second-factors.ts checkAccountProof, wrong
 * ones counted in the sign-in throttle). Used by the authenticator app's and the passkeys' removal.
 */
export function RemovalProofForm({
  id,
  label,
  kind,
  canUseCode,
  error,
  pending,
  submitLabel,
  onSubmit,
  onSwitch,
  onCancel,
}: {
  /** The proof field's id (unique on the page). */
  id: string;
  /** The form's accessible name, e.g. "Remove authenticator app". */
  label: string;
  kind: ProofKind;
  /** Whether the account has an authenticator app (a code is a proof only then). */
  canUseCode: boolean;
  error: string | undefined;
  pending: boolean;
  submitLabel: string;
  onSubmit: (proof: { code: string } | { password: string }) => void;
  onSwitch: (kind: ProofKind) => void;
  onCancel: () => void;
}) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get("proof") ?? "");
    onSubmit(kind === "password" ? { password: value } : { code: value });
  }
  return (
    <form onSubmit={submit} className="space-y-3 rounded-lg border border-slate-200 p-4" aria-label={label}>
      <Field id={id} label={kind === "code" ? "A code from your authenticator app" : "Your password"} error={error}>
        <input
          key={kind}
          id={id}
          name="proof"
          type={kind === "code" ? "text" : "password"}
          autoComplete={kind === "code" ? "one-time-code" : "current-password"}
          required
          maxLength={kind === "code" ? 40 : 1024}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          className={inputClasses}
        />
      </Field>
      <div className="flex flex-wrap gap-3">
        <Button type="submit" variant="danger" size="sm" loading={pending}>
          {submitLabel}
        </Button>
        {canUseCode ? (
          <Button type="button" variant="ghost" size="sm" onClick={() => onSwitch(kind === "code" ? "password" : "code")}>
            {kind === "code" ? "Use my password instead" : "Use a code instead"}
          </Button>
        ) : null}
        <Button type="button" variant="ghost" size="sm" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
