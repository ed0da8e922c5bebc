"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Controller, useForm, useWatch, type FieldError as RhfFieldError, type UseFormRegisterReturn } from "react-hook-form";
import { toast } from "sonner";
import type { z } from "zod";
import { createAppAction, resubmitAppAction, updateAppAction } from "@/lib/actions/apps";
import { Button } from "@/components/ui/button";
import { ButtonLink } from "@/components/ui/button-link";
import { describedBy, Field, FieldError, inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import type { ActionResult } from "@/lib/actions/result";
import { APP_DESCRIPTION_MAX, APP_NAME_MAX, createAppSchema, type DeveloperAppView } from "@/lib/schemas/apps";
import { SVC_SCOPES, SVC_SCOPE_NAMES, USER_ONLY_SCOPES, type SvcScope } from "@/lib/scopes";
import { LogoInput } from "./logo-input";
import { handOffSandboxSecret } from "./new-sandbox-secret-banner";
import { UriListInput } from "./uri-list-input";

const LINK_FIELDS = [
  { name: "homepageUrl", label: "Homepage", placeholder: "https://app.example.com/" },
  { name: "privacyPolicyUrl", label: "Privacy policy", placeholder: "https://app.example.com/privacy" },
  { name: "termsUrl", label: "Terms of service", placeholder: "https://app.example.com/terms" },
] as const;

type FormInput = z.input<typeof createAppSchema>;
type FormOutput = z.output<typeof createAppSchema>;

const TYPE_CHOICES = [
  {
    value: "api",
    title: "API key client",
    icon: "key",
    text: "A server talking to the API as itself, with a client ID and a secret (client credentials). No user signs in.",
  },
  {
    value: "login",
    title: "Login client",
    icon: "user",
    text: "An app people sign in to with their platform account (authorization code + PKCE). No secret.",
  },
] as const;

/** The same zod schema validates here (zodResolver), in the server action, and in the service. */
export function AppForm({ app }: { app?: DeveloperAppView }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const editing = Boolean(app);
  // Bytes stay outside react-hook-form (it would copy a Uint8Array into a plain object).
  const [logo, setLogo] = useState<Uint8Array | null | undefined>(undefined);
  const [logoError, setLogoError] = useState<string | undefined>(undefined);
  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: (values, context, options) =>
      // An API client has no redirect URIs: the (hidden) lists must not fail its validation.
      zodResolver(createAppSchema)(
        values.type === "api" ? { ...values, redirectUris: [], postLogoutRedirectUris: [], deviceFlow: false, requirePar: false } : values,
        context,
        options,
      ),
    mode: "onTouched",
    defaultValues: {
      name: app?.name ?? "",
      description: app?.description ?? "",
      type: app?.type ?? "api",
      scopes: (app?.scopes as SvcScope[] | undefined) ?? [],
      redirectUris: app?.redirectUris ?? [""],
      postLogoutRedirectUris: app?.postLogoutRedirectUris ?? [],
      homepageUrl: app?.homepageUrl ?? "",
      privacyPolicyUrl: app?.privacyPolicyUrl ?? "",
      termsUrl: app?.termsUrl ?? "",
      // A request to turn it on that waits for review stays asked for (saving must not withdraw it).
      deviceFlow: Boolean(app?.deviceFlow || app?.pendingChange?.deviceFlow),
      requirePar: app?.requirePar ?? false,
      requireDpop: app?.requireDpop ?? false,
    },
  });
  const {
    register,
    control,
    handleSubmit,
    setError,
    setValue,
    formState: { errors },
  } = form;
  // useWatch, not watch(): a subscription React's compiler can memoize around.
  const type = useWatch({ control, name: "type" });
  const scopes = useWatch({ control, name: "scopes" }) ?? [];
  const name = useWatch({ control, name: "name" }) ?? "";
  const description = useWatch({ control, name: "description" }) ?? "";

  function applyResult(result: ActionResult<{ clientId: string }>, success: string) {
    if (result.ok) {
      toast.success(success);
      router.push(`/apps/${result.data.clientId}`);
      router.refresh();
      return;
    }
    for (const [field, message] of Object.entries(result.error.fields ?? {})) {
      if (field === "logo") setLogoError(message);
      else if (field in createAppSchema.shape) setError(field as keyof FormInput, { type: "server", message });
    }
    toast.error(result.error.message);
  }

  // A rejected app's edit can go back to the review queue with it ("Save and resubmit").
  const canResubmit = app?.status === "rejected";
  // A row added and left empty is not an error to fix: blank rows go before validation,
  // unless every row is blank (then the empty row shows what is missing).
  const dropBlankRows = () => {
    for (const field of ["redirectUris", "postLogoutRedirectUris"] as const) {
      const rows = form.getValues(field) ?? [];
      const kept = rows.filter((uri) => uri.trim() !== "");
      if (kept.length && kept.length < rows.length) setValue(field, kept);
    }
  };
  const submit = (resubmit: boolean) => (event?: React.BaseSyntheticEvent) => {
    dropBlankRows();
    return validated(resubmit)(event);
  };
  const validated = (resubmit: boolean) =>
    handleSubmit((values) => {
      if (logoError) return;
      const data = { ...values, ...(logo !== undefined ? { logo } : {}) };
      startTransition(async () => {
        if (app) {
          const { type: _fixed, ...update } = data;
          if (resubmit) {
            applyResult(await resubmitAppAction(app.clientId, update), "Saved and resubmitted: the app is back in the review queue.");
          } else {
            const result = await updateAppAction(app.clientId, update);
            applyResult(
              result,
              result.ok && result.data.sentForReview
                ? "Sent for review: the changes that need an admin wait on the app page; the app keeps running as approved."
                : "Changes saved",
            );
          }
        } else {
          const result = await createAppAction(data);
          // The sandbox secret is shown once, on the app's page this form goes to.
          if (result.ok && result.data.sandbox.clientSecret) {
            handOffSandboxSecret({
              clientId: result.data.clientId,
              sandboxClientId: result.data.sandbox.clientId,
              clientSecret: result.data.sandbox.clientSecret,
            });
          }
          applyResult(result, "Application registered. It is now waiting for review: its sandbox works already.");
        }
      });
    });
  const onSubmit = submit(false);

  const listErrors = (error: unknown): { items: (string | undefined)[]; list?: string } => {
    if (!error) return { items: [] };
    const e = error as RhfFieldError & Record<number, RhfFieldError | undefined> & { root?: RhfFieldError };
    const items: (string | undefined)[] = [];
    for (let i = 0; i < 20; i++) items.push(e[i]?.message);
    return { items, list: e.message ?? e.root?.message };
  };
  const redirectErrors = listErrors(errors.redirectUris);
  const logoutErrors = listErrors(errors.postLogoutRedirectUris);

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-8">
      <section className="rounded-xl border border-slate-200 bg-white p-5 shadow-xs sm:p-6" aria-labelledby="about-heading">
        <h2 id="about-heading" className="text-base font-semibold">
          About the app
        </h2>
        <p className="mt-1 text-sm text-slate-600">Shown to admins during review and to people on the consent screen.</p>
        <div className="mt-6 grid gap-6">
          <Field id="name" label="Application name" required hint={<Counter value={name} max={APP_NAME_MAX} />} error={errors.name?.message}>
            <input
              id="name"
              className={inputClasses}
              autoComplete="off"
              placeholder="Acme Chat Bridge"
              maxLength={APP_NAME_MAX}
              aria-invalid={errors.name ? true : undefined}
              aria-describedby={describedBy("name", { hint: true, error: Boolean(errors.name) })}
              {...register("name")}
            />
          </Field>
          <Field
            id="description"
            label="Description"
            hint={
              <>
                What the app does and why it needs these scopes. <Counter value={description} max={APP_DESCRIPTION_MAX} />
              </>
            }
            error={errors.description?.message}
          >
            <textarea
              id="description"
              rows={3}
              className={inputClasses}
              maxLength={APP_DESCRIPTION_MAX}
              aria-invalid={errors.description ? true : undefined}
              aria-describedby={describedBy("description", { hint: true, error: Boolean(errors.description) })}
              {...register("description")}
            />
          </Field>
          <LogoInput
            clientId={app?.clientId ?? null}
            name={name}
            current={app?.logo ?? null}
            value={logo}
            onChange={setLogo}
            error={logoError}
            onError={setLogoError}
          />
        </div>
      </section>

      <section className="rounded-xl border border-slate-200 bg-white p-5 shadow-xs sm:p-6" aria-labelledby="links-heading">
        <h2 id="links-heading" className="text-base font-semibold">
          Links
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          Optional, https only. Shown as links on the consent page, so people can check who is asking.
          {app && (app.status === "approved" || app.status === "suspended")
            ? " On an approved app, an admin reviews changed links and a new logo before people see them."
            : ""}
        </p>
        <div className="mt-6 grid gap-6">
          {LINK_FIELDS.map((link) => {
            const error = errors[link.name]?.message;
            return (
              <Field key={link.name} id={link.name} label={link.label} error={error}>
                <input
                  id={link.name}
                  type="url"
                  inputMode="url"
                  className={inputClasses}
                  autoComplete="off"
                  placeholder={link.placeholder}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={describedBy(link.name, { error: Boolean(error) })}
                  {...register(link.name)}
                />
              </Field>
            );
          })}
        </div>
      </section>

      <section className="rounded-xl border border-slate-200 bg-white p-5 shadow-xs sm:p-6" aria-labelledby="type-heading">
        <fieldset>
          <legend id="type-heading" className="text-base font-semibold">
            Client type
          </legend>
          <p className="mt-1 text-sm text-slate-600">
            {editing ? "The type of an app cannot change after registration." : "Choose how your app gets its tokens."}
          </p>
          <div className="mt-4 grid gap-3 sm:grid-cols-2">
            {TYPE_CHOICES.map((choice) => (
              <label
                key={choice.value}
                className={`relative flex cursor-pointer gap-3 rounded-xl border p-4 transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-600 ${
                  type === choice.value
                    ? "border-brand-600 bg-brand-50/60 ring-1 ring-brand-600"
                    : "border-slate-200 hover:border-slate-300"
                } ${editing ? "cursor-not-allowed opacity-80" : ""}`}
              >
                <input
                  type="radio"
                  value={choice.value}
                  disabled={editing}
                  className="sr-only"
                  {...register("type", {
                    onChange: (e) => {
                      if (e.target.value === "api") {
                        // User-only scopes mean nothing without a user behind the token.
                        setValue(
                          "scopes",
                          scopes.filter((s) => !USER_ONLY_SCOPES.includes(s as SvcScope)),
                        );
                      }
                    },
                  })}
                />
                <span
                  className={`flex size-10 shrink-0 items-center justify-center rounded-lg ${type === choice.value ? "bg-brand-600 text-white" : "bg-slate-100 text-slate-600"}`}
                >
                  <Icon name={choice.icon} className="size-5" />
                </span>
                <span>
                  <span className="block text-sm font-semibold text-slate-900">{choice.title}</span>
                  <span className="mt-1 block text-sm text-slate-600">{choice.text}</span>
                </span>
                {type === choice.value ? (
                  <Icon name="check" className="absolute top-3 right-3 size-5 text-brand-600" />
                ) : null}
              </label>
            ))}
          </div>
          <FieldError message={errors.type?.message} />
        </fieldset>
      </section>

      <section className="rounded-xl border border-slate-200 bg-white p-5 shadow-xs sm:p-6" aria-labelledby="scopes-heading">
        <fieldset>
          <legend id="scopes-heading" className="text-base font-semibold">
            Scopes
          </legend>
          <p className="mt-1 text-sm text-slate-600">
            Ask only for what the app needs.{" "}
            {type === "login"
              ? "People see these on the consent screen; openid is always included."
              : "An API key client acts as itself, so scopes that need a signed-in person are unavailable."}
          </p>
          <div className="mt-4 divide-y divide-slate-100 rounded-lg border border-slate-200">
            {/* Usable scopes first: for an API client the user-only ones sink to the bottom. */}
            {[...SVC_SCOPE_NAMES]
              .sort((a, b) => Number(type === "api" && USER_ONLY_SCOPES.includes(a)) - Number(type === "api" && USER_ONLY_SCOPES.includes(b)))
              .map((scope) => {
              const userOnly = USER_ONLY_SCOPES.includes(scope);
              const unavailable = type === "api" && userOnly;
              return (
                <label
                  key={scope}
                  className={`flex gap-3 px-4 py-3 ${unavailable ? "cursor-not-allowed bg-slate-50" : "cursor-pointer hover:bg-slate-50"}`}
                >
                  <input
                    type="checkbox"
                    value={scope}
                    disabled={unavailable}
                    className="mt-0.5 size-4 shrink-0 rounded border-slate-400 accent-brand-600"
                    {...register("scopes")}
                  />
                  <span className="min-w-0">
                    <code className="font-mono text-sm font-medium text-slate-900">{scope}</code>
                    <span className={`block text-sm ${unavailable ? "text-slate-500" : "text-slate-600"}`}>
                      {SVC_SCOPES[scope]}
                      {unavailable ? " — needs a signed-in person (login clients only)" : ""}
                    </span>
                  </span>
                </label>
              );
            })}
          </div>
          <FieldError message={(errors.scopes as RhfFieldError | undefined)?.message} />
        </fieldset>
      </section>

      {type === "login" ? (
        <section className="space-y-8 rounded-xl border border-slate-200 bg-white p-5 shadow-xs sm:p-6" aria-label="Redirect URIs">
          <Controller
            control={control}
            name="redirectUris"
            render={({ field }) => (
              <UriListInput
                label="Redirect URIs"
                hint="Where the sign-in service may send people back with a code. Matched exactly. https, or http only for localhost and 127.0.0.1; no #fragment."
                placeholder="https://app.example.com/auth/callback"
                addLabel="Add redirect URI"
                value={field.value ?? []}
                onChange={field.onChange}
                onBlur={field.onBlur}
                errors={redirectErrors.items}
                listError={redirectErrors.list}
              />
            )}
          />
          <Controller
            control={control}
            name="postLogoutRedirectUris"
            render={({ field }) => (
              <UriListInput
                label="Post-logout redirect URIs"
                hint="Optional. After signing out through the sign-in service, people may land on any redirect URI above or on one listed here. Matched exactly."
                placeholder="https://app.example.com/"
                addLabel="Add post-logout redirect URI"
                value={field.value ?? []}
                onChange={field.onChange}
                onBlur={field.onBlur}
                errors={logoutErrors.items}
                listError={logoutErrors.list}
              />
            )}
          />
          <CheckboxField id="deviceFlow" label="Allow device sign-in" input={register("deviceFlow")} error={errors.deviceFlow?.message}>
            For TVs, command-line tools and chat bots without a browser: the app shows a code, the person enters it at the
            platform&apos;s device page and signs in there (RFC 8628 device authorization grant).
            {app?.status === "approved" || app?.status === "suspended"
              ? " Turning it on is reviewed by an admin before it applies; turning it off applies at once."
              : ""}
            {app?.pendingChange?.deviceFlow ? " Turning it on is waiting for review." : ""}
          </CheckboxField>
          <CheckboxField id="requirePar" label="Require pushed authorization requests" input={register("requirePar")} error={errors.requirePar?.message}>
            The app posts each sign-in request to the platform first and sends the browser with only a <code>request_uri</code>, so
            its parameters never travel in the address bar; a plain authorization request is refused (PAR, RFC 9126). Applies at
            once.
          </CheckboxField>
        </section>
      ) : null}

      {/* Both client types get tokens: either can require them to be sender-constrained. */}
      <section className="rounded-xl border border-slate-200 bg-white p-5 shadow-xs sm:p-6" aria-label="Token binding">
        <CheckboxField id="requireDpop" label="Require DPoP-bound tokens" input={register("requireDpop")} error={errors.requireDpop?.message}>
          Tokens are bound to a key the app holds (RFC 9449): a copied token is useless without it. The app must send a DPoP
          proof with every token request and API call.
        </CheckboxField>
      </section>

      <div className="flex flex-col-reverse gap-3 border-t border-slate-200 pt-6 sm:flex-row sm:justify-end">
        <ButtonLink href={app ? `/apps/${app.clientId}` : "/apps"} variant="secondary" prefetch={false}>
          Cancel
        </ButtonLink>
        {canResubmit ? (
          <>
            <Button type="submit" variant="secondary" loading={pending}>
              Save changes
            </Button>
            <Button type="button" loading={pending} onClick={() => void submit(true)()}>
              Save and resubmit
            </Button>
          </>
        ) : (
          <Button type="submit" loading={pending}>
            {app ? "Save changes" : "Register application"}
          </Button>
        )}
      </div>
    </form>
  );
}

/** "12 of 80 characters": the limit is known before submitting, not learnt from an error. */
function Counter({ value, max }: { value: string; max: number }) {
  return (
    <span className={`tabular-nums ${value.length >= max ? "font-medium text-amber-800" : ""}`}>
      {value.length} of {max} characters
    </span>
  );
}

/** A checkbox with its label, the hint below it (its description) and its error. */
function CheckboxField({ id, label, input, error, children }: { id: string; label: string; input: UseFormRegisterReturn; error?: string; children: React.ReactNode }) {
  return (
    <div>
      <label className="flex cursor-pointer gap-3">
        <input type="checkbox" className="mt-0.5 size-4 shrink-0 rounded border-slate-400 accent-brand-600" aria-describedby={`${id}-hint`} {...input} />
        <span className="min-w-0">
          <span className="block text-sm font-medium text-slate-900">{label}</span>
          <span id={`${id}-hint`} className="mt-0.5 block text-sm text-slate-600">
            {children}
          </span>
        </span>
      </label>
      <FieldError message={error} />
    </div>
  );
}
