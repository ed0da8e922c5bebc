"use client";

import { useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { Icon } from "@/components/ui/icon";

/**
 * The one-time view of a client secret. The server generated it for this response only and keeps
 * just its hash, so once this panel is gone (reload, navigation, "Done") it cannot be shown again.
 */
export function SecretReveal({ secret, onDone }: { secret: string; onDone?: () => void }) {
  const [hidden, setHidden] = useState(false);
  if (hidden) return null;
  return (
    <section
      aria-labelledby="secret-reveal-title"
      className="overflow-hidden rounded-xl border border-amber-300 bg-amber-50 shadow-sm"
      data-testid="secret-reveal"
    >
      <div className="flex gap-3 px-5 py-4">
        <Icon name="key" className="mt-0.5 size-5 shrink-0 text-amber-700" />
        <div className="min-w-0 flex-1">
          <h2 id="secret-reveal-title" className="text-base font-semibold text-amber-950">
            Your client secret — copy it now, it will not be shown again
          </h2>
          <p className="mt-1 text-sm text-amber-900">
            We store only a hash of it. Keep it in a secret manager or an environment variable, never in source code,
            logs or shell history. If you lose it, regenerate a new one.
          </p>
          <div className="mt-4 flex flex-col gap-2 rounded-lg border border-amber-300 bg-white p-1.5 pl-3 sm:flex-row sm:items-center">
            <label htmlFor="client-secret" className="sr-only">
              Client secret
            </label>
            <input
              id="client-secret"
              readOnly
              value={secret}
              onFocus={(e) => e.currentTarget.select()}
              spellCheck={false}
              className="min-w-0 flex-1 bg-transparent py-1 font-mono text-sm text-slate-900 outline-none"
              data-testid="client-secret"
            />
            <CopyButton value={secret} label="Copy client secret" showText />
          </div>
          <div className="mt-4 flex justify-end">
            <button
              type="button"
              onClick={() => {
                setHidden(true);
                onDone?.();
              }}
              className="rounded-md px-3 py-1.5 text-sm font-medium text-amber-950 ring-1 ring-inset ring-amber-400 hover:bg-amber-100"
            >
              I have stored it safely
            </button>
          </div>
        </div>
      </div>
    </section>
  );
}
