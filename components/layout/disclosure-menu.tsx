"use client";

import { usePathname } from "next/navigation";
import { useEffect, useRef, type ReactNode } from "react";

/**
 * A <details> dropdown (keyboard-accessible and usable before hydration) that also closes the way
 * people expect a menu to: after navigating, on a click outside, and on Escape (focus returns to
 * the toggle).
 */
export function DisclosureMenu({ summary, summaryLabel, summaryClassName, children }: {
  summary: ReactNode;
  /** The summary's accessible name when its content has no text (an icon alone). */
  summaryLabel?: string;
  summaryClassName: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDetailsElement>(null);
  const pathname = usePathname();

  useEffect(() => {
    ref.current?.removeAttribute("open");
  }, [pathname]);

  useEffect(() => {
    const onPointer = (event: MouseEvent) => {
      const details = ref.current;
      if (details?.open && !details.contains(event.target as Node)) details.removeAttribute("open");
    };
    const onKey = (event: KeyboardEvent) => {
      const details = ref.current;
      if (event.key === "Escape" && details?.open) {
        details.removeAttribute("open");
        details.querySelector("summary")?.focus();
      }
    };
    document.addEventListener("mousedown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, []);

  return (
    <details ref={ref} className="group relative">
      <summary className={summaryClassName} aria-label={summaryLabel}>
        {summary}
      </summary>
      {children}
    </details>
  );
}
