"use client";

import type { CSSProperties } from "react";
import { Toaster as Sonner } from "sonner";

/**
 * sonner's rich colours put their text at about 4.3:1 on their tinted backgrounds (success
 * hsl(140 100% 27%) on hsl(143 85% 96%)), below WCAG AA's 4.5:1. The toaster reads its colours from
 * CSS variables on its own element (sonner 2 dist/styles.css, `[data-sonner-toaster][data-sonner-theme=light]`),
 * so inline values win: the same hues, darker text (Tailwind's -800 shades, 7:1 or more).
 */
const AA_COLOURS = {
  "--success-text": "#065f46",
  "--success-border": "#a7f3d0",
  "--error-text": "#991b1b",
  "--error-border": "#fecaca",
  "--info-text": "#1e40af",
  "--warning-text": "#92400e",
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
