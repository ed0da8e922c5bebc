"use client";

import { useId, useRef, useState } from "react";
import { Button, buttonClasses } from "@/components/ui/button";
import { FieldError } from "@/components/ui/field";
import { Icon } from "@/components/ui/icon";
import { LOGO_RULES, logoInputSchema } from "@/lib/schemas/apps";
import { AppLogo } from "./app-identity";

/**
 * The app form's logo control: choose a PNG, JPEG or WebP file (checked here for size and
 * magic bytes so the form says so at once; the server decodes and checks it again), preview it, or
 * remove the current logo. `value`: undefined keeps the logo, bytes replace it, null removes it.
 */
export function LogoInput({
  clientId,
  name,
  current,
  value,
  onChange,
  error,
  onError,
}: {
  clientId: string | null;
  name: string;
  /** The approved logo's file name. */
  current: string | null;
  value: Uint8Array | null | undefined;
  onChange: (value: Uint8Array | null | undefined) => void;
  error?: string;
  onError: (message: string | undefined) => void;
}) {
  const id = useId();
  const [preview, setPreview] = useState<string | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const [fileName, setFileName] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  function showPreview(file: File | null) {
    if (preview) URL.revokeObjectURL(preview);
    setPreview(file ? URL.createObjectURL(file) : null);
  }

  async function choose(file: File | undefined) {
    if (!file) return;
    const bytes = new Uint8Array(await file.arrayBuffer());
    const parsed = logoInputSchema.safeParse(bytes);
    if (!parsed.success) {
      onError(parsed.error.issues[0]?.message);
      setInputKey((k) => k + 1);
      return;
    }
    onError(undefined);
    showPreview(file);
    onChange(bytes);
  }

  const shown = value === null ? null : value === undefined ? current : "preview";
  return (
    <div>
      <label htmlFor={`${id}-file`} className="block text-sm font-medium text-slate-900">
        Logo
      </label>
      <p id={`${id}-hint`} className="mt-1 text-sm text-slate-600">
        Optional. {LOGO_RULES} Shown on the consent page, served from the platform.
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-4">
        {shown === "preview" && preview ? (
          // A local preview (blob: URL) of the chosen file; next/image cannot show one.
          // eslint-disable-next-line @next/next/no-img-element
          <img src={preview} alt="" width={64} height={64} className="size-16 rounded-xl bg-white object-contain ring-1 ring-slate-200" />
        ) : clientId ? (
          <AppLogo clientId={clientId} name={name || "?"} logo={shown === "preview" ? null : shown} size="lg" />
        ) : (
          <AppLogo clientId="new" name={name || "?"} logo={null} size="lg" />
        )}
        <div className="flex min-w-0 flex-col gap-2">
          {/* The browser's file input stays (keyboard, screen readers), visually replaced by a button
              and the chosen file's name (issue 28: not the browser's unstyled control). */}
          <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1">
            <input
              key={inputKey}
              ref={fileInput}
              id={`${id}-file`}
              type="file"
              accept="image/png,image/jpeg,image/webp"
              aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
              aria-invalid={error ? true : undefined}
              className="peer sr-only"
              onChange={(e) => {
                setFileName(e.target.files?.[0]?.name ?? null);
                void choose(e.target.files?.[0]);
              }}
            />
            {/* For the mouse only: keyboard and screen-reader users are on the input itself ("Logo"), whose focus this shows. */}
            <button
              type="button"
              tabIndex={-1}
              aria-hidden="true"
              onClick={() => fileInput.current?.click()}
              className={buttonClasses("secondary", "sm", "peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-brand-600")}
            >
              <Icon name="plus" /> {shown ? "Choose another image" : "Choose an image"}
            </button>
            <span className="min-w-0 text-sm break-all text-slate-600" data-testid="logo-file-name">
              {value instanceof Uint8Array && fileName ? fileName : "PNG, JPEG or WebP"}
            </span>
          </div>
          <div className="flex flex-wrap gap-2">
            {value !== undefined ? (
              <Button
                type="button"
                variant="secondary"
                size="sm"
                onClick={() => {
                  showPreview(null);
                  onChange(undefined);
                  onError(undefined);
                  setInputKey((k) => k + 1);
                }}
              >
                {value === null ? "Keep the logo" : "Cancel new logo"}
              </Button>
            ) : null}
            {current && value !== null ? (
              <Button type="button" variant="secondary" size="sm" onClick={() => {
                  showPreview(null);
                  onChange(null);
                }}>
                Remove logo
              </Button>
            ) : null}
          </div>
          {value === null ? <p className="text-sm text-slate-700">The logo will be removed when you save.</p> : null}
        </div>
      </div>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
