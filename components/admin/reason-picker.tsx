"use client";

import { useId } from "react";
import { FieldError, inputClasses } from "@/components/ui/field";

/**
 * A reason chosen from a few presets or written freely: picking a preset fills the text, which
 * stays editable. The server validates the text again (zod, length limits).
 */
export function ReasonPicker({
  presets,
  value,
  onChange,
  error,
  label = "Reason",
  placeholder,
}: {
  presets: readonly string[];
  value: string;
  onChange: (value: string) => void;
  error?: string;
  label?: string;
  placeholder?: string;
}) {
  const id = useId();
  return (
    <div className="text-left">
      <fieldset>
        <legend className="text-sm font-medium text-slate-900">Common reasons</legend>
        <div className="mt-2 flex flex-wrap gap-2">
          {presets.map((preset) => (
            <button
              key={preset}
              type="button"
              onClick={() => onChange(preset)}
              aria-pressed={value === preset}
              className={`rounded-full px-3 py-1 text-left text-xs font-medium ring-1 ring-inset transition-colors focus-visible:outline-2 focus-visible:outline-brand-600 ${
                value === preset ? "bg-brand-50 text-brand-800 ring-brand-300" : "bg-white text-slate-700 ring-slate-300 hover:bg-slate-50"
              }`}
            >
              {preset}
            </button>
          ))}
        </div>
      </fieldset>
      <label htmlFor={id} className="mt-4 block text-sm font-medium text-slate-900">
        {label}
      </label>
      <textarea
        id={id}
        rows={3}
        maxLength={500}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className={`${inputClasses} mt-2`}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        placeholder={placeholder}
      />
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
