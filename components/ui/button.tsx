import type { ButtonHTMLAttributes } from "react";
import { Spinner } from "./spinner";

export type ButtonVariant = "primary" | "secondary" | "danger" | "danger-outline" | "ghost" | "light" | "outline-light";
export type ButtonSize = "sm" | "md" | "lg";

const BASE =
  "inline-flex items-center justify-center gap-2 rounded-lg font-medium transition-colors " +
  "focus-visible:outline-2 focus-visible:outline-offset-2 disabled:cursor-not-allowed disabled:opacity-60";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: "bg-brand-600 text-white shadow-sm hover:bg-brand-700 focus-visible:outline-brand-600",
  secondary:
    "bg-white text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 hover:bg-slate-50 focus-visible:outline-brand-600",
  danger: "bg-red-600 text-white shadow-sm hover:bg-red-700 focus-visible:outline-red-600",
  "danger-outline": "bg-white text-red-700 ring-1 ring-inset ring-red-300 hover:bg-red-50 focus-visible:outline-red-600",
  ghost: "text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-brand-600",
  // On dark or brand-coloured backgrounds (header, hero, call to action).
  light: "bg-white text-slate-900 shadow-sm hover:bg-slate-100 focus-visible:outline-white",
  "outline-light": "text-white ring-1 ring-inset ring-white/30 hover:bg-white/10 focus-visible:outline-white",
};

const SIZES: Record<ButtonSize, string> = {
  sm: "px-3 text-sm",
  md: "px-4 text-sm",
  lg: "px-6 text-base",
};
const HEIGHTS: Record<ButtonSize, string> = { sm: "h-8", md: "h-10", lg: "h-12" };
const MIN_HEIGHTS: Record<ButtonSize, string> = { sm: "min-h-8", md: "min-h-10", lg: "min-h-12" };

/** `wrap`: a long label may wrap on a phone instead of overflowing; the button grows instead. */
export function buttonClasses(variant: ButtonVariant = "primary", size: ButtonSize = "md", className = "", wrap = false): string {
  const layout = wrap ? `${MIN_HEIGHTS[size]} py-2 text-center` : `${HEIGHTS[size]} whitespace-nowrap`;
  return `${BASE} ${layout} ${VARIANTS[variant]} ${SIZES[size]} ${className}`.trim();
}

export function Button({
  variant = "primary",
  size = "md",
  loading = false,
  className,
  children,
  disabled,
  type = "button",
  wrap = false,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant; size?: ButtonSize; loading?: boolean; wrap?: boolean }) {
  return (
    <button
      type={type}
      className={buttonClasses(variant, size, className, wrap)}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      {...rest}
    >
      {loading ? <Spinner /> : null}
      {children}
    </button>
  );
}
