"use client";

import { browserSupportsWebAuthn, startRegistration } from "@simplewebauthn/browser";
import { useRouter } from "next/navigation";
import { useState, useSyncExternalStore, useTransition, type FormEvent } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field, inputClasses } from "@/components/ui/field";
import { IssuedRecoveryCodes } from "./recovery-codes";
import { AccountProofForm, ProofField, readProof, type AccountProof, type ProofKind } from "./account-proof-form";
import { finishPasskeyRegistrationAction, removePasskeyAction, renamePasskeyAction, startPasskeyRegistrationAction } from "@/lib/actions/passkeys";

export interface PasskeyItem {
  id: number;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  synced: boolean;
}

/** "Chrome on macOS": a passkey's suggested name, from this browser (the person may change it). */
function suggestedName(userAgent: string): string {
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrome\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : "";
  const os = /iPhone/.test(userAgent)
    ? "iPhone"
    : /iPad/.test(userAgent)
      ? "iPad"
      : /Android/.test(userAgent)
        ? "Android"
        : /Mac OS X/.test(userAgent)
          ? "macOS"
          : /Windows/.test(userAgent)
            ? "Windows"
            : /CrOS/.test(userAgent)
              ? "ChromeOS"
              : /Linux/.test(userAgent)
                ? "Linux"
                : "";
  return browser && os ? `${browser} on ${os}` : browser || os || "My passkey";
}

const subscribeNever = () => () => undefined;

const day = (iso: string) => new Date(iso).toUTCString().slice(5, 16);

/**
 * Account security's passkeys: add one (named, after the password or a current code, so a borrowed
 * session cannot add one; the browser's own dialog makes it), the
 * list with created and last used, rename, remove (asks for the password or a current code, as
 * removing the authenticator app does). A passkey signs in alone on the hosted login page, or
 * serves as the second step after the password. Everything is decided by the actions and services.
 */
export function PasskeyPanel({ passkeys, canUseCode }: { passkeys: PasskeyItem[]; /** A code (the app's or a recovery code) may prove a removal. */ canUseCode: boolean }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  // Whether this browser can make passkeys: known in the browser only (the server assumes yes).
  const supported = useSyncExternalStore(subscribeNever, browserSupportsWebAuthn, () => true);
  const [adding, setAdding] = useState<string | null>(null);
  const [addError, setAddError] = useState<string | undefined>();
  const [addProof, setAddProof] = useState<ProofKind>("password");
  const [addProofError, setAddProofError] = useState<string | undefined>();
  const [renaming, setRenaming] = useState<number | null>(null);
  const [renameError, setRenameError] = useState<string | undefined>();
  const [removing, setRemoving] = useState<{ id: number; with: ProofKind } | null>(null);
  const [removeError, setRemoveError] = useState<string | undefined>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);

  function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    const proof = readProof(event.currentTarget, addProof);
    startTransition(async () => {
      setAddError(undefined);
      const started = await startPasskeyRegistrationAction(proof);
      if (!started.ok) return void setAddProofError(started.error.message);
      setAddProofError(undefined);
      let response;
      try {
        response = await startRegistration({ optionsJSON: started.data.options });
      } catch (error) {
        const name = (error as Error).name;
        return void setAddError(
          name === "InvalidStateError" ? "This device already has a passkey for your account." : "The passkey was not created (cancelled or not allowed). Try again.",
        );
      }
      const result = await finishPasskeyRegistrationAction({ name, response });
      if (!result.ok) return void setAddError(result.error.fields?.name ?? result.error.message);
      setAdding(null);
      setAddError(undefined);
      setRecoveryCodes(result.data.recoveryCodes);
      toast.success(`Passkey "${result.data.name}" added`);
      router.refresh();
    });
  }

  function rename(event: FormEvent<HTMLFormElement>, id: number) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    startTransition(async () => {
      const result = await renamePasskeyAction({ id, name });
      if (!result.ok) return void setRenameError(result.error.fields?.name ?? result.error.message);
      setRenaming(null);
      setRenameError(undefined);
      toast.success("Passkey renamed");
      router.refresh();
    });
  }

  function remove(proof: AccountProof) {
    if (!removing) return;
    startTransition(async () => {
      const result = await removePasskeyAction({ id: removing.id, proof });
      if (!result.ok) return void setRemoveError(result.error.message);
      setRemoving(null);
      setRemoveError(undefined);
      toast.success("Passkey removed");
      router.refresh();
    });
  }

  return (
    <>
      {recoveryCodes ? <IssuedRecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} /> : null}
      <Card
        id="passkeys"
        title={
          <span className="flex flex-wrap items-center gap-2">
            Passkeys {passkeys.length ? <Badge tone="green" dot>{passkeys.length}</Badge> : <Badge>None</Badge>}
          </span>
        }
        description="Sign in with your fingerprint, face or screen lock instead of your password, or use a passkey as the second step after it."
      >
        <div className="space-y-4">
          {passkeys.length ? (
            <ul aria-label="Your passkeys" className="divide-y divide-slate-100 rounded-lg ring-1 ring-slate-200">
              {passkeys.map((passkey) => (
                <li key={passkey.id} className="space-y-3 px-4 py-3">
                  <div className="flex flex-wrap items-start justify-between gap-3">
                    <div className="min-w-0 flex-1 basis-48">
                      <p className="font-medium break-words text-slate-900">{passkey.name}</p>
                      <p className="mt-0.5 text-sm text-slate-600">
                        Added <time dateTime={passkey.createdAt}>{day(passkey.createdAt)}</time> ·{" "}
                        {passkey.lastUsedAt ? (
                          <>
                            last used <time dateTime={passkey.lastUsedAt}>{day(passkey.lastUsedAt)}</time>
                          </>
                        ) : (
                          "not used yet"
                        )}{" "}
                        · {passkey.synced ? "synced" : "this device only"}
                      </p>
                    </div>
                    <div className="flex shrink-0 gap-2">
                      <Button
                        variant="ghost"
                        size="sm"
                        aria-label={`Rename ${passkey.name}`}
                        disabled={pending}
                        onClick={() => {
                          setRenaming(passkey.id);
                          setRemoving(null);
                          setRenameError(undefined);
                        }}
                      >
                        Rename
                      </Button>
                      <Button
                        variant="danger-outline"
                        size="sm"
                        aria-label={`Remove ${passkey.name}`}
                        disabled={pending}
                        onClick={() => {
                          setRemoving({ id: passkey.id, with: "password" });
                          setRenaming(null);
                          setRemoveError(undefined);
                        }}
                      >
                        Remove
                      </Button>
                    </div>
                  </div>
                  {renaming === passkey.id ? (
                    <form onSubmit={(event) => rename(event, passkey.id)} className="space-y-3" aria-label={`Rename ${passkey.name}`}>
                      <Field id={`rename-${passkey.id}`} label="New name" error={renameError}>
                        <input
                          id={`rename-${passkey.id}`}
                          name="name"
                          type="text"
                          required
                          maxLength={64}
                          defaultValue={passkey.name}
                          aria-invalid={renameError ? true : undefined}
                          aria-describedby={renameError ? `rename-${passkey.id}-error` : undefined}
                          className={inputClasses}
                        />
                      </Field>
                      <div className="flex flex-wrap gap-3">
                        <Button type="submit" size="sm" loading={pending}>
                          Save
                        </Button>
                        <Button type="button" variant="ghost" size="sm" onClick={() => setRenaming(null)}>
                          Cancel
                        </Button>
                      </div>
                    </form>
                  ) : null}
                  {removing?.id === passkey.id ? (
                    <AccountProofForm
                      id="remove-passkey-proof"
                      label={`Remove ${passkey.name}`}
                      kind={removing.with}
                      canUseCode={canUseCode}
                      error={removeError}
                      pending={pending}
                      submitLabel="Remove passkey"
                      onSubmit={remove}
                      onSwitch={(kind) => {
                        setRemoving({ id: passkey.id, with: kind });
                        setRemoveError(undefined);
                      }}
                      onCancel={() => setRemoving(null)}
                    />
                  ) : null}
                </li>
              ))}
            </ul>
          ) : null}
          {!supported ? (
            <p className="text-sm text-slate-600">This browser cannot make passkeys. Use a recent browser to add one.</p>
          ) : adding !== null ? (
            <form onSubmit={add} className="space-y-3" aria-label="Add a passkey">
              <Field id="passkey-name" label="Name" hint="So you can tell your passkeys apart, e.g. the device or password manager that keeps it." error={addError}>
                <input
                  id="passkey-name"
                  name="name"
                  type="text"
                  required
                  maxLength={64}
                  defaultValue={adding}
                  aria-invalid={addError ? true : undefined}
                  aria-describedby={addError ? "passkey-name-hint passkey-name-error" : "passkey-name-hint"}
                  className={inputClasses}
                />
              </Field>
              <ProofField
                id="passkey-proof"
                kind={addProof}
                canUseCode={canUseCode}
                error={addProofError}
                onSwitch={(kind) => {
                  setAddProof(kind);
                  setAddProofError(undefined);
                }}
              />
              <div className="flex flex-wrap gap-3">
                <Button type="submit" size="sm" loading={pending}>
                  Create passkey
                </Button>
                <Button type="button" variant="ghost" size="sm" onClick={() => setAdding(null)} disabled={pending}>
                  Cancel
                </Button>
              </div>
            </form>
          ) : (
            <Button
              size="sm"
              onClick={() => {
                setAdding(suggestedName(navigator.userAgent));
                setAddError(undefined);
                setAddProof("password");
                setAddProofError(undefined);
              }}
            >
              Add a passkey
            </Button>
          )}
        </div>
      </Card>
    </>
  );
}
