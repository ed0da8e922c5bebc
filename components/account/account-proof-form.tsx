"use client";

import type { FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field, inputClasses } from "@/components/ui/field";

export type ProofKind = "code" | "password";
export type AccountProof = { code: string } | { password: string };

/** The proof a form holds (its `proof` field), as the actions take it. */
export function readProof(form: HTMLFormElement, kind: ProofKind): AccountProof {
  const value = String(new FormData(form).get("proof") ?? "");
  return kind === "password" ? { password: value } : { code: value };
}

/**
 * The proof field Account security asks for before a factor is added or removed: the password, or
 * a current code from the authenticator app (or a recovery code) where the account has one
 * (lib/services/second-factors.ts checkAccountProof; wrong ones count in the sign-in throttle).
 * Named `proof` in its form; `onSwitch` offers the other kind when a code can prove it.
 */
export function ProofField({
  id,
  kind,
  canUseCode,
  error,
  onSwitch,
}: {
  /** The field's id (unique on the page). */
  id: string;
  kind: ProofKind;
  /** Whether the account has an authenticator app or recovery codes (a code is a proof only then). */
  canUseCode: boolean;
  error: string | undefined;
  onSwitch: (kind: ProofKind) => void;
}) {
  return (
    <div className="space-y-2">
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
      {canUseCode ? (
        <Button type="button" variant="ghost" size="sm" onClick={() => onSwitch(kind === "code" ? "password" : "code")}>
          {kind === "code" ? "Use my password instead" : "Use a code instead"}
        </Button>
      ) : null}
    </div>
  );
}

/**
 * A form that asks only for the proof: before the authenticator app is set up (`tone` "primary")
 * or a factor is removed ("danger").
 */
export function AccountProofForm({
  id,
  label,
  kind,
  canUseCode,
  error,
  pending,
  submitLabel,
  tone = "danger",
  onSubmit,
  onSwitch,
  onCancel,
}: {
  id: string;
  /** The form's accessible name, e.g. "Remove authenticator app". */
  label: string;
  kind: ProofKind;
  canUseCode: boolean;
  error: string | undefined;
  pending: boolean;
  submitLabel: string;
  tone?: "primary" | "danger";
  onSubmit: (proof: AccountProof) => void;
  onSwitch: (kind: ProofKind) => void;
  onCancel: () => void;
}) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onSubmit(readProof(event.currentTarget, kind));
  }
  return (
    <form onSubmit={submit} className="space-y-3 rounded-lg border border-slate-200 p-4" aria-label={label}>
      <ProofField id={id} kind={kind} canUseCode={canUseCode} error={error} onSwitch={onSwitch} />
      <div className="flex flex-wrap gap-3">
        <Button type="submit" variant={tone === "danger" ? "danger" : "primary"} size="sm" loading={pending}>
          {submitLabel}
        </Button>
        <Button type="button" variant="ghost" size="sm" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
