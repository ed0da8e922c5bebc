"use client";

import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { Icon } from "@/components/ui/icon";

/**
 * The one-time view of a client secret. The server generated it for this response only and keeps
 * just its hash, so once this panel is gone (reload, navigation, "Done") it cannot be shown again.
 * `focus`: move focus to the secret when it appears after an action (add, roll), so keyboard and
 * screen-reader users land on it; the first reveal on page load leaves focus alone.
 */
export function SecretReveal({
  secret,
  secretId,
  next,
  focus = false,
  title = "Your client secret — copy it now, it will not be shown again",
  headingLevel = 3,
  note = "We store only a hash of it. Keep it in a secret manager or an environment variable, never in source code, logs or shell history. If you lose it, add a new secret and retire this one.",
  label = "Client secret",
  inputTestId = "client-secret",
  testId = "secret-reveal",
  onDone,
}: {
  secret: string;
  secretId?: string;
  /** What to do with it now (deploy, then retire the old one…). */
  next?: ReactNode;
  focus?: boolean;
  title?: string;
  /** 2 when it is the page's banner (right under the page's h1), 3 inside a card. */
  headingLevel?: 2 | 3;
  /** How it is kept and what to do if it is lost (a webhook signing secret is kept encrypted, not hashed). */
  note?: ReactNode;
  /** What the secret is, for the field's label and the copy button ("Signing secret"). */
  label?: string;
  inputTestId?: string;
  /** The panel's test id: a sandbox secret's is told apart from the live one's. */
  testId?: string;
  onDone?: () => void;
}) {
  const [hidden, setHidden] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  const titleId = useId();
  const inputId = useId();
  const Heading = headingLevel === 2 ? "h2" : "h3";

  useEffect(() => {
    if (!focus) return;
    // After the confirmation dialog has closed and handed focus back to its opener.
    const timer = setTimeout(() => input.current?.focus(), 50);
    return () => clearTimeout(timer);
  }, [focus]);

  if (hidden) return null;
  return (
    <section
      aria-labelledby={titleId}
      className="overflow-hidden rounded-xl border border-amber-300 bg-amber-50 shadow-sm"
      data-testid={testId}
    >
      <div className="flex gap-3 px-4 py-4 sm:px-5">
        <Icon name="key" className="mt-0.5 hidden size-5 shrink-0 text-amber-700 sm:block" />
        <div className="min-w-0 flex-1">
          <Heading id={titleId} className="text-base font-semibold text-amber-950">
            {title}
          </Heading>
          <p className="mt-1 text-sm text-amber-900">{note}</p>
          {next ? <div className="mt-2 text-sm font-medium text-amber-950">{next}</div> : null}
          <div className="mt-4 flex flex-col gap-2 rounded-lg border border-amber-300 bg-white p-1.5 sm:flex-row sm:items-center sm:pl-3">
            <label htmlFor={inputId} className="sr-only">
              {label}
              {secretId ? ` ${secretId}` : ""}
            </label>
            {/* A textarea that grows to its content: on a phone the whole secret wraps into view rather than being cut off. */}
            <textarea
              ref={input}
              id={inputId}
              readOnly
              rows={1}
              value={secret}
              onFocus={(e) => e.currentTarget.select()}
              spellCheck={false}
              autoComplete="off"
              className="field-sizing-content min-w-0 flex-1 resize-none overflow-hidden rounded bg-transparent px-1.5 py-1 font-mono text-sm break-all text-slate-900 outline-none focus-visible:ring-2 focus-visible:ring-amber-400 sm:px-0"
              data-testid={inputTestId}
            />
            <CopyButton value={secret} label={`Copy ${label.toLowerCase()}`} showText className="justify-center" />
          </div>
          {secretId ? (
            <p className="mt-2 text-xs text-amber-900">
              Secret id <code className="font-mono break-all">{secretId}</code>
            </p>
          ) : null}
          <div className="mt-4 flex justify-end">
            <button
              type="button"
              onClick={() => {
                setHidden(true);
                onDone?.();
              }}
              className="rounded-md px-3 py-1.5 text-sm font-medium text-amber-950 ring-1 ring-inset ring-amber-400 hover:bg-amber-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-amber-600"
            >
              I have stored it safely
            </button>
          </div>
        </div>
      </div>
    </section>
  );
}
