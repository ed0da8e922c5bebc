"use client";

import { useEffect, useState } from "react";
import { toast } from "sonner";
import { Icon } from "./icon";

/** Copies `value` to the clipboard; the label names what is copied, for screen readers and tooltips. */
export function CopyButton({
  value,
  label,
  className = "",
  showText = false,
}: {
  value: string;
  label: string;
  className?: string;
  showText?: boolean;
}) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      const what = label.replace(/^Copy /, "");
      toast.success(`${what.charAt(0).toUpperCase()}${what.slice(1)} copied`);
    } catch {
      toast.error("Could not copy: select the text and copy it by hand.");
    }
  }

  return (
    <button
      type="button"
      onClick={copy}
      aria-label={label}
      title={label}
      className={`inline-flex h-8 shrink-0 items-center gap-1.5 rounded-md px-2 text-sm font-medium text-slate-600 ring-1 ring-inset ring-slate-300 transition-colors hover:bg-slate-50 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 ${className}`}
    >
      <Icon name={copied ? "check" : "copy"} className={`size-4 ${copied ? "text-emerald-600" : ""}`} />
      {showText ? <span>{copied ? "Copied" : "Copy"}</span> : null}
      <span className="sr-only" aria-live="polite">
        {copied ? "Copied" : ""}
      </span>
    </button>
  );
}
