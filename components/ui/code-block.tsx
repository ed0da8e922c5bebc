import { CopyButton } from "./copy-button";

/** A dark code panel with a title bar and a copy button, dark in both themes (`fixed-palette`, app/globals.css). */
export function CodeBlock({ code, title, language = "bash" }: { code: string; title?: string; language?: string }) {
  return (
    <figure className="fixed-palette overflow-hidden rounded-xl border border-slate-800 bg-slate-950 shadow-sm">
      <figcaption className="flex items-center justify-between gap-2 border-b border-white/10 px-4 py-2">
        <span className="truncate font-mono text-xs text-slate-300">{title ?? language}</span>
        <CopyButton
          value={code}
          label={`Copy ${title ?? "code"}`}
          className="text-slate-300 ring-white/20 hover:bg-white/10 hover:text-white"
        />
      </figcaption>
      <pre className="overflow-x-auto p-4 text-[13px] leading-relaxed text-slate-100" tabIndex={0}>
        <code className="font-mono">{code}</code>
      </pre>
    </figure>
  );
}
