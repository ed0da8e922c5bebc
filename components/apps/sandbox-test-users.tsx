"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import type { z } from "zod";
import { addSandboxTestUserAction, removeSandboxTestUserAction } from "@/lib/actions/sandboxes";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { describedBy, Field, inputClasses } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { addSandboxTestUserSchema } from "@/lib/schemas/sandboxes";
import { SecretReveal } from "./secret-reveal";

type FormInput = z.input<typeof addSandboxTestUserSchema>;
type FormOutput = z.output<typeof addSandboxTestUserSchema>;

/** One test user as the list shows it (the date as an ISO string: this crosses to the browser). */
export interface TestUserItem {
  handle: string;
  createdAt: string;
}

/**
 * A sandbox's test users: who can sign in through the sandbox client. Adding one shows
 * its generated password once, here; the list never holds a password. Without `canManage` (viewers)
 * only the list.
 */
export function SandboxTestUsers({
  clientId,
  users,
  limit,
  canManage,
}: {
  clientId: string;
  users: TestUserItem[];
  limit: number;
  canManage: boolean;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [added, setAdded] = useState<{ handle: string; password: string } | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const formId = useId();
  const form = useForm<FormInput, unknown, FormOutput>({
    // An empty field means "generate a handle".
    resolver: (values, context, options) => zodResolver(addSandboxTestUserSchema)({ handle: values.handle || undefined }, context, options),
    defaultValues: { handle: "" },
  });
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors },
  } = form;
  const full = users.length >= limit;

  const add = handleSubmit((values) => {
    startTransition(async () => {
      const result = await addSandboxTestUserAction(clientId, values);
      if (!result.ok) {
        if (result.error.fields?.handle) setError("handle", { type: "server", message: result.error.message });
        else toast.error(result.error.message);
        return;
      }
      setAdded(result.data);
      reset({ handle: "" });
      router.refresh();
    });
  });

  function remove(handle: string) {
    startTransition(async () => {
      const result = await removeSandboxTestUserAction(clientId, handle);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setRemoving(null);
      if (added?.handle === handle) setAdded(null);
      toast.success(`Removed test user @${handle}`);
      router.refresh();
    });
  }

  return (
    <div className="space-y-5">
      {added ? (
        <SecretReveal
          secret={added.password}
          focus
          label={`Password of ${added.handle}`}
          inputTestId="test-user-password"
          testId="test-user-reveal"
          title={`Test user @${added.handle} — copy the password now, it will not be shown again`}
          note="We store only a hash of it. Lost it? Remove the test user and add another."
          next={
            <>
              Sign in as <code className="font-mono break-all">{added.handle}</code> on the hosted login page through the
              sandbox client ID only.
            </>
          }
          onDone={() => setAdded(null)}
        />
      ) : null}

      {users.length ? (
        <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200" aria-label="Test users">
          {users.map((u) => (
            <li key={u.handle} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3" data-testid="test-user-row">
              <div className="min-w-0">
                <p className="font-mono text-sm font-medium break-all text-slate-900">@{u.handle}</p>
                <p className="text-xs text-slate-600">
                  Added <time dateTime={u.createdAt}>{u.createdAt.slice(0, 16).replace("T", " ")} UTC</time>
                </p>
              </div>
              {canManage ? (
                <Button variant="ghost" size="sm" onClick={() => setRemoving(u.handle)} aria-label={`Remove test user ${u.handle}`}>
                  <Icon name="trash" /> Remove
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600" data-testid="test-users-empty">
          No test users yet.{canManage ? " Add one to sign in through the sandbox client." : ""}
        </p>
      )}

      {canManage ? (
        full ? (
          <p className="text-sm text-slate-600">This sandbox has {limit} test users, the most it can have. Remove one to add another.</p>
        ) : (
          <form onSubmit={add} noValidate className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_auto] sm:items-start">
            <Field
              id={`${formId}-handle`}
              label="Handle (optional)"
              hint="2–30 characters of a–z, 0–9 and _. Leave empty for a generated test_… handle."
              error={errors.handle?.message}
            >
              <input
                id={`${formId}-handle`}
                className={inputClasses}
                autoComplete="off"
                spellCheck={false}
                placeholder="test_reviewer"
                aria-invalid={errors.handle ? true : undefined}
                aria-describedby={describedBy(`${formId}-handle`, { hint: true, error: Boolean(errors.handle) })}
                {...register("handle")}
              />
            </Field>
            <Button type="submit" loading={pending && removing === null} className="sm:mt-7">
              <Icon name="plus" /> Add test user
            </Button>
          </form>
        )
      ) : null}

      <Dialog
        open={removing !== null}
        onClose={() => (pending ? undefined : setRemoving(null))}
        title={`Remove test user @${removing ?? ""}?`}
        description="Its account and everything it did in the sandbox are deleted; its sign-ins and tokens stop at once."
        footer={
          <>
            <Button variant="secondary" onClick={() => setRemoving(null)} disabled={pending}>
              Cancel
            </Button>
            <Button variant="danger" onClick={() => removing && remove(removing)} loading={pending}>
              Remove test user
            </Button>
          </>
        }
      />
    </div>
  );
}
