import type { ReactNode } from "react";

/**
 * The white card every hosted sign-in page sits in. `min-w-0` and `wrap-anywhere` keep an app's
 * long unbroken name (or a long handle) inside the card at 390 px instead of clipping it.
 */
export function InteractionCard({ children, labelledBy }: { children: ReactNode; labelledBy: string }) {
  return (
    <section
      aria-labelledby={labelledBy}
      className="w-full min-w-0 rounded-2xl border border-slate-200 bg-white p-6 shadow-xl shadow-black/5 wrap-anywhere sm:p-8"
    >
      {children}
    </section>
  );
}
