import { isValidElement, type ReactNode } from "react";

export interface DocsHeading {
  id: string;
  text: string;
  level: 2 | 3;
}

/** The text a React node renders (strings and numbers under it, elements' children followed). */
function textOf(node: ReactNode): string {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return "";
}

/**
 * The headings with an id in a docs page's content, in order: the "On this page" contents are read
 * from the very elements the page renders, so they cannot drift from it. Only the element tree
 * passed as children is walked (a component's own output is not), which is where the pages write
 * their h2 and h3 headings.
 */
export function collectHeadings(node: ReactNode, into: DocsHeading[] = []): DocsHeading[] {
  if (Array.isArray(node)) {
    for (const child of node) collectHeadings(child, into);
  } else if (isValidElement<{ id?: unknown; children?: ReactNode }>(node)) {
    const { id, children } = node.props;
    if ((node.type === "h2" || node.type === "h3") && typeof id === "string") {
      into.push({ id, text: textOf(children).replace(/\s+/g, " ").trim(), level: node.type === "h2" ? 2 : 3 });
    } else {
      collectHeadings(children, into);
    }
  }
  return into;
}
