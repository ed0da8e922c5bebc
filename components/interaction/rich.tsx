import { Fragment, type ReactNode } from "react";

/**
 * A translated sentence whose `{placeholders}` are React nodes (a bold app name, a link), so each
 * language keeps its own word order (lib/i18n). Unknown placeholders stay as written.
 */
export function Rich({ text, values }: { text: string; values: Record<string, ReactNode> }) {
  const parts = text.split(/\{(\w+)\}/);
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 0 ? part : <Fragment key={index}>{part in values ? values[part] : `{${part}}`}</Fragment>,
      )}
    </>
  );
}
