"use client";

import type { CSSProperties } from "react";
import { Toaster as Sonner } from "sonner";

/**
 * sonner's rich colours put their text at about 4.3:1 on their tinted backgrounds (success
 * hsl(140 100% 27%) on hsl(143 85% 96%)), below WCAG AA's 4.5:1. The toaster reads its colours from
 * CSS variables on its own element (sonner 2 dist/styles.css, `[data-sonner-toaster][data-sonner-theme=light]`),
 * so inline values win: the same hues from the palette, darker text (Tailwind's -800 shades, 7:1 or
 * more). Palette variables, not literals, so the toasts follow the dark mode of app/globals.css.
 */
const AA_COLOURS = {
  "--normal-bg": "var(--color-white)",
  "--normal-border": "var(--color-slate-200)",
  "--normal-text": "var(--color-slate-900)",
  "--success-bg": "var(--color-emerald-50)",
  "--success-text": "var(--color-emerald-800)",
  "--success-border": "var(--color-emerald-200)",
  "--error-bg": "var(--color-red-50)",
  "--error-text": "var(--color-red-800)",
  "--error-border": "var(--color-red-200)",
  "--info-bg": "var(--color-sky-50)",
  "--info-text": "var(--color-sky-800)",
  "--info-border": "var(--color-sky-200)",
  "--warning-bg": "var(--color-amber-50)",
  "--warning-text": "var(--color-amber-800)",
  "--warning-border": "var(--color-amber-200)",
} as CSSProperties;

export function Toaster() {
  return (
    <Sonner
      position="bottom-right"
      richColors
      closeButton
      duration={5000}
      style={AA_COLOURS}
      toastOptions={{ className: "text-sm" }}
    />
  );
}
