"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition, type ReactNode } from "react";
import { toast } from "sonner";
import { addSecretAction, retireSecretAction, rollSecretAction } from "@/lib/actions/apps";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";
import type { RevealedSecret } from "@/lib/schemas/apps";
import { SecretReveal } from "./secret-reveal";

/** One active secret as the panel shows it (dates as ISO strings: this crosses to the browser). */
export interface SecretItem {
  id: string;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
}

type Reveal = Pick<RevealedSecret, "secretId" | "clientSecret"> & { via: "add" | "roll" };

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "24 Nov 2026, 09:27 UTC": the same text on the server and in the browser (no hydration mismatch). */
function formatUtc(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

function Time({ iso }: { iso: string }) {
  return <time dateTime={iso}>{formatUtc(iso)}</time>;
}

const NEXT_STEP: Record<Reveal["via"], ReactNode> = {
  add: "Next: deploy this secret everywhere the app runs, then retire the old one.",
  roll: "Deploy it now: every other secret stopped working, and every access token of the app was revoked.",
};

/**
 * The client secrets of an approved API client: the one-time reveal after "Add" or
 * "Roll" (the first secret, revealed after approval, is the page's banner: NewSecretBanner), the active secrets (hint, id, created, last used, never the
 * value), and for the owner: add a second secret, retire one, roll. What each does to tokens is
 * decided by lib/services/app-secrets.ts; the texts here say exactly that. Without `canManage`
 * (admins, or an app that is not approved) only the list and `notice` are shown.
 */
export function ClientSecretPanel({
  clientId,
  secrets,
  maxActive,
  newSecretId = null,
  canManage,
  notice,
}: {
  clientId: string;
  secrets: SecretItem[];
  maxActive: number;
  /** The first secret, revealed by this page load in the banner at the top of the page: marked "New". */
  newSecretId?: string | null;
  canManage: boolean;
  notice?: ReactNode;
}) {
  const router = useRouter();
  const [reveal, setReveal] = useState<Reveal | null>(null);
  const [retiring, setRetiring] = useState<SecretItem | null>(null);
  const [rolling, setRolling] = useState(false);
  const [pending, startTransition] = useTransition();
  const listId = useId();
  const limitId = useId();
  const atLimit = secrets.length >= maxActive;

  function add() {
    startTransition(async () => {
      const result = await addSecretAction(clientId);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setReveal({ ...result.data, via: "add" });
      toast.success("Second secret added. Both secrets work until you retire one.");
      router.refresh();
    });
  }

  function retire(secret: SecretItem) {
    startTransition(async () => {
      const result = await retireSecretAction(clientId, secret.id);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setRetiring(null);
      if (reveal?.secretId === secret.id) setReveal(null);
      toast.success(`Retired the secret ending in ${secret.hint}. Token requests with it now fail.`);
      router.refresh();
    });
  }

  function roll() {
    startTransition(async () => {
      const result = await rollSecretAction(clientId);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      setRolling(false);
      setReveal({ ...result.data, via: "roll" });
      toast.success("Secret rolled. Old secrets and every access token of the app no longer work.");
      router.refresh();
    });
  }

  return (
    <div className="space-y-5">
      {reveal ? (
        <SecretReveal
          key={reveal.secretId}
          secret={reveal.clientSecret}
          secretId={reveal.secretId}
          next={NEXT_STEP[reveal.via]}
          focus
          onDone={() => setReveal(null)}
        />
      ) : null}

      <div>
        <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
          <h3 id={listId} className="text-sm font-semibold text-slate-900">
            Active secrets
          </h3>
          <p className="text-xs text-slate-600">
            {secrets.length} of {maxActive} · the token endpoint accepts any active secret
          </p>
        </div>
        {secrets.length ? (
          <ul aria-labelledby={listId} className="mt-2 divide-y divide-slate-100 rounded-lg border border-slate-200">
            {secrets.map((secret) => (
              <li
                key={secret.id}
                className="flex flex-col gap-3 px-3 py-3 sm:flex-row sm:items-center sm:justify-between sm:px-4"
                data-testid="secret-row"
                data-secret-id={secret.id}
              >
                <div className="flex min-w-0 items-start gap-3">
                  <span className="mt-0.5 grid size-8 shrink-0 place-items-center rounded-md bg-slate-100 text-slate-600" aria-hidden="true">
                    <Icon name="key" className="size-4" />
                  </span>
                  <div className="min-w-0">
                    <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
                      <span className="font-mono text-sm font-medium text-slate-900" data-testid="secret-hint">
                        <span className="sr-only">Secret ending in </span>
                        <span aria-hidden="true">••••</span>
                        {secret.hint}
                      </span>
                      <code className="font-mono text-xs break-all text-slate-500">{secret.id}</code>
                      {reveal?.secretId === secret.id || newSecretId === secret.id ? <Badge tone="green">New</Badge> : null}
                    </p>
                    <p className="mt-1 text-xs text-slate-600">
                      Created <Time iso={secret.createdAt} />
                      <span aria-hidden="true" className="hidden sm:inline">
                        {" "}
                        ·{" "}
                      </span>
                      <br className="sm:hidden" />
                      <span data-testid="secret-last-used">
                        {secret.lastUsedAt ? (
                          <>
                            Last used <Time iso={secret.lastUsedAt} />
                          </>
                        ) : (
                          "Never used"
                        )}
                      </span>
                    </p>
                  </div>
                </div>
                {canManage && secrets.length > 1 ? (
                  <Button
                    size="sm"
                    variant="secondary"
                    className="self-start sm:self-auto"
                    onClick={() => setRetiring(secret)}
                    aria-label={`Retire the secret ending in ${secret.hint}`}
                  >
                    Retire
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 rounded-lg border border-dashed border-slate-300 px-4 py-3 text-sm text-slate-600">
            No secret yet. It is revealed once to the owner on this page, on their first visit after approval.
          </p>
        )}
      </div>

      {notice ? (
        <p className="flex items-start gap-2 text-sm text-slate-600" data-testid="secret-notice">
          <Icon name="lock" className="mt-0.5 size-4 shrink-0" />
          <span>{notice}</span>
        </p>
      ) : null}

      {canManage ? (
        <>
          <div className="flex flex-col gap-4 rounded-lg bg-slate-50 p-4 sm:flex-row sm:items-start sm:justify-between">
            <div className="min-w-0 text-sm text-slate-700">
              <h3 className="font-semibold text-slate-900">Rotate without downtime</h3>
              <ol className="mt-2 list-decimal space-y-1 pl-5">
                <li>Add a second secret and copy it.</li>
                <li>Deploy it everywhere the app runs. Both secrets work meanwhile.</li>
                <li>
                  Retire the old one once its &ldquo;Last used&rdquo; time stops changing. Access tokens already issued with it keep
                  working until they expire.
                </li>
              </ol>
            </div>
            <div className="flex shrink-0 flex-col gap-2 sm:max-w-56 sm:items-end">
              <Button
                variant="secondary"
                onClick={add}
                loading={pending && !retiring && !rolling}
                disabled={atLimit || pending}
                aria-describedby={atLimit ? limitId : undefined}
              >
                <Icon name="plus" /> Add a second secret
              </Button>
              {atLimit ? (
                <p id={limitId} className="text-xs text-slate-600 sm:text-right">
                  {maxActive} secrets are active, the most an app can have. Retire one to add another.
                </p>
              ) : null}
            </div>
          </div>

          <div className="flex flex-col gap-3 rounded-lg border border-red-200 p-4 sm:flex-row sm:items-center sm:justify-between">
            <div className="min-w-0 text-sm">
              <h3 className="font-semibold text-slate-900">Secret leaked?</h3>
              <p className="mt-1 text-slate-600">
                Roll it: one new secret replaces all of them, and every access token of the app is revoked at once.
              </p>
            </div>
            <Button variant="danger" className="shrink-0 self-start sm:self-auto" onClick={() => setRolling(true)} disabled={pending}>
              <Icon name="refresh" /> Roll secret
            </Button>
          </div>

          <Dialog
            open={retiring !== null}
            onClose={() => (pending ? undefined : setRetiring(null))}
            title={`Retire the secret ending in ${retiring?.hint ?? ""}?`}
            description={
              <>
                Token requests with this secret fail with <code className="font-mono">invalid_client</code> at once.
                Access tokens already issued with it keep working until they expire.
              </>
            }
            footer={
              <>
                <Button variant="secondary" onClick={() => setRetiring(null)} disabled={pending}>
                  Cancel
                </Button>
                <Button variant="danger" onClick={() => retiring && retire(retiring)} loading={pending}>
                  Retire secret
                </Button>
              </>
            }
          >
            {retiring ? (
              <p className="text-sm text-slate-600">
                Secret <code className="font-mono break-all text-slate-900">{retiring.id}</code>,{" "}
                {retiring.lastUsedAt ? (
                  <>
                    last used <Time iso={retiring.lastUsedAt} />.
                  </>
                ) : (
                  "never used."
                )}
              </p>
            ) : null}
          </Dialog>

          <Dialog
            open={rolling}
            onClose={() => (pending ? undefined : setRolling(false))}
            title="Roll the client secret?"
            description={
              <>
                One new secret is shown once. Every other secret stops working immediately, and every access token of the
                app is revoked at once — anything still using an old secret fails with{" "}
                <code className="font-mono">invalid_client</code> until you deploy the new one.
              </>
            }
            footer={
              <>
                <Button variant="secondary" onClick={() => setRolling(false)} disabled={pending}>
                  Cancel
                </Button>
                <Button variant="danger" onClick={roll} loading={pending}>
                  Roll secret
                </Button>
              </>
            }
          >
            <p className="text-sm text-slate-600">
              Not a leak? Add a second secret instead and retire the old one once it is unused: nothing breaks.
            </p>
          </Dialog>
        </>
      ) : null}
    </div>
  );
}
