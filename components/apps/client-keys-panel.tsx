"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useId, useState, useTransition, type ReactNode } from "react";
import { useForm, useWatch, type FieldErrors } from "react-hook-form";
import { toast } from "sonner";
import { clearAppKeysAction, setAppKeysAction, type ClientKeysItem } from "@/lib/actions/apps";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { describedBy, Field, inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { appKeysInputSchema } from "@/lib/schemas/apps";

type Source = "uri" | "paste";
type FormValues = { source: Source; jwksUri: string; jwks: string };

/** The schema's two branches: `{ jwksUri }` and `{ jwks }` (lib/schemas/apps.ts appKeysInputSchema). */
const [URI_SCHEMA, PASTE_SCHEMA] = appKeysInputSchema.options;

const SOURCES: { value: Source; title: string; text: string }[] = [
  { value: "uri", title: "Key set URL (jwks_uri)", text: "The platform fetches your public keys from it, and again once they are 10 minutes old: rotate them there." },
  { value: "paste", title: "Paste public keys (JWK Set)", text: "Public keys only. To rotate, paste the new set here." },
];

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "24 Nov 2026, 09:27 UTC": the same text on the server and in the browser (no hydration mismatch). */
function formatUtc(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

/**
 * An API or login client's private_key_jwt keys (RFC 7523, lib/services/app-keys.ts): where they
 * come from (a jwks_uri or pasted) and, per key, its type, algorithm and key ID, never more. With
 * `canManage`: set or replace them, and go back to a secret (API) or to a public client (login).
 * What each does to secrets and tokens is decided by the service; the texts here say exactly that.
 */
export function ClientKeysPanel({
  clientId,
  appType,
  clientKeys,
  canManage,
  notice,
}: {
  clientId: string;
  appType: "api" | "login";
  clientKeys: ClientKeysItem | null;
  canManage: boolean;
  notice?: ReactNode;
}) {
  const router = useRouter();
  const [clearing, setClearing] = useState(false);
  const [pending, startTransition] = useTransition();
  const listId = useId();

  function clear() {
    startTransition(async () => {
      const result = await clearAppKeysAction(clientId);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setClearing(false);
      toast.success(
        appType === "api"
          ? "Keys removed. The new client secret is shown on this page: deploy it now."
          : "Keys removed. The app is a public client again: it signs people in with PKCE.",
      );
      // No router.refresh(): the action's revalidatePath already sent this page again, and that
      // render revealed the API client's new secret once (revealSecretOnce); a second render would
      // replace it with a page without it.
    });
  }

  return (
    <div className="space-y-5">
      {clientKeys ? (
        <div>
          <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
            <h3 id={listId} className="text-sm font-semibold text-slate-900">
              Active keys
            </h3>
            {clientKeys.updatedAt ? (
              <p className="text-xs text-slate-600">
                {clientKeys.jwksUri ? "Fetched" : "Saved"} <time dateTime={clientKeys.updatedAt}>{formatUtc(clientKeys.updatedAt)}</time>
              </p>
            ) : null}
          </div>
          <p className="mt-1 text-sm text-slate-600" data-testid="keys-source">
            {clientKeys.jwksUri ? (
              <>
                From <code className="font-mono text-xs break-all text-slate-900">{clientKeys.jwksUri}</code>
              </>
            ) : (
              "Pasted on this page."
            )}
          </p>
          <ul aria-labelledby={listId} className="mt-2 divide-y divide-slate-100 rounded-lg border border-slate-200">
            {clientKeys.keys.map((key, index) => (
              <li key={`${key.kid ?? ""}-${index}`} className="flex min-w-0 items-start gap-3 px-3 py-3 sm:px-4" data-testid="key-row">
                <span className="mt-0.5 grid size-8 shrink-0 place-items-center rounded-md bg-slate-100 text-slate-600" aria-hidden="true">
                  <Icon name="key" className="size-4" />
                </span>
                <div className="min-w-0">
                  <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
                    <Badge tone="sky">{key.kty}</Badge>
                    {key.alg ? <Badge>{key.alg}</Badge> : null}
                  </p>
                  <p className="mt-1 text-xs text-slate-600">
                    Key ID{" "}
                    {key.kid ? (
                      <code className="font-mono break-all text-slate-900" data-testid="key-kid">
                        {key.kid}
                      </code>
                    ) : (
                      <span className="italic">none</span>
                    )}
                  </p>
                </div>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p className="rounded-lg border border-dashed border-slate-300 px-4 py-3 text-sm text-slate-600" data-testid="keys-empty">
          With private_key_jwt, the app signs a short-lived JWT with its own private key for each token request, instead of
          sending a {appType === "api" ? "client secret" : "secret"}: the platform holds only the public keys, so there is
          nothing here to leak.
        </p>
      )}

      {notice ? (
        <p className="flex items-start gap-2 text-sm text-slate-600" data-testid="keys-notice">
          <Icon name="lock" className="mt-0.5 size-4 shrink-0" />
          <span>{notice}</span>
        </p>
      ) : null}

      {canManage ? (
        <>
          <KeysForm clientId={clientId} appType={appType} current={clientKeys} onSaved={() => router.refresh()} />

          {clientKeys ? (
            <div className="flex flex-col gap-3 rounded-lg border border-slate-200 p-4 sm:flex-row sm:items-center sm:justify-between">
              <p className="min-w-0 text-sm text-slate-600">
                {appType === "api"
                  ? "Back to a client secret: this page shows a new one, and these keys stop working."
                  : "Back to a public client that signs people in with PKCE: these keys stop working."}
              </p>
              <Button variant="secondary" className="shrink-0 self-start sm:self-auto" onClick={() => setClearing(true)} disabled={pending}>
                {appType === "api" ? "Use a client secret instead" : "Stop using keys"}
              </Button>
            </div>
          ) : null}

          <Dialog
            open={clearing}
            onClose={() => (pending ? undefined : setClearing(false))}
            title={appType === "api" ? "Use a client secret instead?" : "Stop using keys?"}
            description={
              appType === "api" ? (
                <>
                  Token requests signed with these keys fail with <code className="font-mono">invalid_client</code> at once. Every
                  token request must then use a new client secret, shown once on this page. Access tokens already issued keep
                  working until they expire.
                </>
              ) : (
                <>
                  Token requests signed with these keys fail with <code className="font-mono">invalid_client</code> at once. The
                  app becomes a public client again: it proves each sign-in with PKCE and sends no client authentication. Tokens
                  already issued keep working until they expire.
                </>
              )
            }
            footer={
              <>
                <Button variant="secondary" onClick={() => setClearing(false)} disabled={pending}>
                  Cancel
                </Button>
                <Button variant="danger" onClick={clear} loading={pending}>
                  {appType === "api" ? "Use a client secret" : "Stop using keys"}
                </Button>
              </>
            }
          />
        </>
      ) : null}
    </div>
  );
}

/**
 * A jwks_uri or a pasted JWK Set, checked here by the branch of appKeysInputSchema chosen and again
 * by the action; what only the service can tell (a private key, an unreachable URL) comes back as
 * its message under the field.
 */
function KeysForm({
  clientId,
  appType,
  current,
  onSaved,
}: {
  clientId: string;
  appType: "api" | "login";
  /** The keys in use: the form starts from where they come from (a URL is filled in, to fetch it again). */
  current: ClientKeysItem | null;
  onSaved: () => void;
}) {
  const [pending, startTransition] = useTransition();
  const formId = useId();
  const headingId = `${formId}-heading`;
  const uriId = `${formId}-uri`;
  const jwksId = `${formId}-jwks`;
  const form = useForm<FormValues>({
    resolver: async (values, context, options) => {
      // `names` lists this form's fields, which the branch's own resolver does not know.
      const branch = { ...options, names: undefined };
      const result = await (values.source === "uri"
        ? zodResolver(URI_SCHEMA)({ jwksUri: values.jwksUri }, context, branch)
        : zodResolver(PASTE_SCHEMA)({ jwks: values.jwks }, context, branch));
      // The branch's errors name the one field shown (jwksUri or jwks), a field of this form too.
      return Object.keys(result.errors).length ? { values: {}, errors: result.errors as FieldErrors<FormValues> } : { values, errors: {} };
    },
    defaultValues: { source: current && current.jwksUri === null ? "paste" : "uri", jwksUri: current?.jwksUri ?? "", jwks: "" },
  });
  const {
    register,
    control,
    handleSubmit,
    setError,
    clearErrors,
    reset,
    formState: { errors },
  } = form;
  const source = useWatch({ control, name: "source" });
  const field = source === "uri" ? "jwksUri" : "jwks";

  const submit = handleSubmit((values) => {
    const input = values.source === "uri" ? { jwksUri: values.jwksUri } : { jwks: values.jwks };
    startTransition(async () => {
      const result = await setAppKeysAction(clientId, input);
      if (!result.ok) {
        // The service says what is wrong with the keys or the URL; anything else is not about the field.
        if (result.error.code === "invalid_request") setError(field, { type: "server", message: result.error.fields?.[field] ?? result.error.message });
        else toast.error(result.error.message);
        return;
      }
      const count = result.data.keys.length;
      reset({ source: values.source, jwksUri: result.data.jwksUri ?? "", jwks: "" });
      toast.success(
        `${count === 1 ? "1 key" : `${count} keys`} saved. ${
          appType === "api" ? "The app's client secrets no longer work: sign token requests with the keys." : "Token requests must now be signed with the keys."
        }`,
      );
      onSaved();
    });
  });

  return (
    <form onSubmit={submit} noValidate aria-labelledby={headingId} className="space-y-4 rounded-lg bg-slate-50 p-4" data-testid="keys-form">
      <div>
        <h3 id={headingId} className="text-sm font-semibold text-slate-900">
          {current ? "Replace the keys" : "Use keys instead of a secret"}
        </h3>
        <p className="mt-1 text-sm text-slate-600">
          {current
            ? "The new set replaces the current one at once: a token request signed with a key not in it fails."
            : appType === "api"
              ? "Saving removes every client secret of the app at once. Access tokens already issued keep working until they expire."
              : "From then on, the app's token requests must be signed with one of these keys."}
        </p>
      </div>
      <fieldset>
        <legend className="text-sm font-medium text-slate-900">Where the public keys come from</legend>
        <div className="mt-2 grid gap-2 sm:grid-cols-2">
          {SOURCES.map((choice) => (
            <label
              key={choice.value}
              className={`flex cursor-pointer items-start gap-2 rounded-lg border bg-white p-3 text-sm has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-600 ${
                source === choice.value ? "border-brand-600 ring-1 ring-brand-600" : "border-slate-200 hover:border-slate-300"
              }`}
            >
              <input
                type="radio"
                value={choice.value}
                className="mt-0.5 size-4 shrink-0 accent-brand-600"
                {...register("source", { onChange: () => clearErrors() })}
              />
              <span className="min-w-0">
                <span className="block font-medium text-slate-900">{choice.title}</span>
                <span className="mt-0.5 block text-slate-600">{choice.text}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {source === "uri" ? (
        <Field id={uriId} label="Key set URL" hint="An https URL that answers with a JWK Set of public keys." error={errors.jwksUri?.message}>
          <input
            id={uriId}
            type="url"
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="https://app.example.com/.well-known/jwks.json"
            aria-invalid={errors.jwksUri ? true : undefined}
            aria-describedby={describedBy(uriId, { hint: true, error: Boolean(errors.jwksUri) })}
            className={`${inputClasses} font-mono`}
            {...register("jwksUri")}
          />
        </Field>
      ) : (
        <Field
          id={jwksId}
          label="Public keys"
          hint={
            <>
              A JWK Set (<code className="font-mono text-xs">{'{"keys": [...]}'}</code>) or one JWK: RSA of 2048 bits or more, EC or
              OKP; up to 10 keys. Never paste a private key.
            </>
          }
          error={errors.jwks?.message}
        >
          <textarea
            id={jwksId}
            rows={6}
            autoComplete="off"
            spellCheck={false}
            placeholder='{"keys": [{"kty": "EC", "crv": "P-256", "kid": "…", "x": "…", "y": "…"}]}'
            aria-invalid={errors.jwks ? true : undefined}
            aria-describedby={describedBy(jwksId, { hint: true, error: Boolean(errors.jwks) })}
            className={`${inputClasses} font-mono text-xs`}
            {...register("jwks")}
          />
        </Field>
      )}
      <Button type="submit" loading={pending}>
        <Icon name="key" /> Use these keys
      </Button>
    </form>
  );
}
