"use client";

import { useId } from "react";
import { Icon } from "@/components/ui/icon";
import { inputClasses } from "@/components/ui/field";

/**
 * An editable list of URIs (redirect URIs). Each row is its own labelled input; `errors[i]` shows
 * under row i (zod reports per-item problems by index).
 */
export function UriListInput({
  label,
  hint,
  value,
  onChange,
  onBlur,
  errors,
  listError,
  placeholder,
  addLabel,
}: {
  label: string;
  hint: string;
  value: string[];
  onChange: (next: string[]) => void;
  onBlur?: () => void;
  errors?: (string | undefined)[];
  listError?: string;
  placeholder: string;
  addLabel: string;
}) {
  const baseId = useId();
  const rows = value.length ? value : [];
  return (
    <fieldset>
      <legend className="block text-sm font-medium text-slate-900">{label}</legend>
      <p className="mt-1 text-sm text-slate-600" id={`${baseId}-hint`}>
        {hint}
      </p>
      <div className="mt-3 space-y-2">
        {rows.map((uri, i) => {
          const id = `${baseId}-${i}`;
          const error = errors?.[i];
          return (
            <div key={i}>
              <div className="flex gap-2">
                <label htmlFor={id} className="sr-only">
                  {`${label} ${i + 1}`}
                </label>
                <input
                  id={id}
                  type="url"
                  inputMode="url"
                  autoComplete="off"
                  spellCheck={false}
                  className={`${inputClasses} font-mono`}
                  placeholder={placeholder}
                  value={uri}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={error ? `${id}-error` : `${baseId}-hint`}
                  onBlur={onBlur}
                  onChange={(e) => onChange(rows.map((v, j) => (j === i ? e.target.value : v)))}
                />
                <button
                  type="button"
                  onClick={() => onChange(rows.filter((_, j) => j !== i))}
                  aria-label={`Remove ${label.toLowerCase()} ${i + 1}`}
                  className="inline-flex size-10 shrink-0 items-center justify-center rounded-lg text-slate-500 ring-1 ring-inset ring-slate-300 hover:bg-red-50 hover:text-red-700"
                >
                  <Icon name="trash" />
                </button>
              </div>
              {error ? (
                <p id={`${id}-error`} className="mt-1 text-sm text-red-700" role="alert">
                  {error}
                </p>
              ) : null}
            </div>
          );
        })}
      </div>
      <button
        type="button"
        onClick={() => onChange([...rows, ""])}
        className="mt-3 inline-flex items-center gap-1.5 rounded-md text-sm font-medium text-brand-700 hover:text-brand-800"
      >
        <Icon name="plus" /> {addLabel}
      </button>
      {listError ? (
        <p className="mt-1.5 text-sm text-red-700" role="alert">
          {listError}
        </p>
      ) : null}
    </fieldset>
  );
}
