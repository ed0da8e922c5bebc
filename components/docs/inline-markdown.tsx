import { Fragment } from "react";

/** The OpenAPI descriptions' markdown that we write: paragraphs and `code` spans, nothing else. */
export function InlineMarkdown({ text, className }: { text: string; className?: string }) {
  return (
    <>
      {text
        .split(/\n{2,}/)
        .filter((p) => p.trim())
        .map((paragraph, i) => (
          <p key={i} className={className}>
            {paragraph.split("`").map((part, j) => (j % 2 === 1 ? <code key={j}>{part}</code> : <Fragment key={j}>{part}</Fragment>))}
          </p>
        ))}
    </>
  );
}
