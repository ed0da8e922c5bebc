import type { ReactNode } from "react";

/** The white card every hosted sign-in page sits in. */
export function InteractionCard({ children, labelledBy }: { children: ReactNode; labelledBy: string }) {
  return (
    <section
      aria-labelledby={labelledBy}
      className="w-full rounded-2xl border border-slate-200 bg-white p-8 shadow-xl shadow-slate-900/5"
    >
      {children}
    </section>
  );
}
