"use client";

import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";
import { useEffect, useRef } from "react";

/**
 * Overrides of Scalar's themes (@scalar/api-reference 1.46, dist/style.css `.light-mode` and
 * `.dark-mode`), so that axe finds no serious violation and the client looks like the page:
 * - text colours: its light grey text (#757575, #8e8e8e) and HTTP method colours (#0082d0 blue…) fall
 *   below 4.5:1 on its white and #f6f6f6 backgrounds; these keep at least 4.5:1 on both (the
 *   sidebar's and the search box's colours are computed from them on `.light-mode`, an ancestor,
 *   so they are set here too). `!important`: the theme's own variables are injected at run time.
 * - dark mode (the client follows the page's prefers-color-scheme): the portal's dark
 *   slates for backgrounds, borders and text, and method colours (Tailwind's -300 and -400 shades)
 *   at 4.5:1 or more on them.
 * - names: below 380 px its client-library picker (blocks/scalar-client-selector-block,
 *   ClientDropdown.vue) hides every `span` of its "More" button, the screen-reader text "Select
 *   from all clients" too; that one is shown again (still visually hidden), so the button keeps
 *   its name on phones.
 * Also: its sticky sidebar sticks below the portal's sticky header (4 rem + its 1 px border), not
 * underneath it; its phone header, a second menu button under the portal's, is hidden.
 */
const SCALAR_OVERRIDES = `
.scalar-app {
  --scalar-custom-header-height: calc(4rem + 1px);
  --scalar-font: var(--font-sans);
  --scalar-font-code: var(--font-mono);
}
.scalar-app .light-mode, .scalar-app.light-mode, .light-mode .scalar-app {
  --scalar-color-2: #475569 !important;
  --scalar-color-3: #5b6472 !important;
  --scalar-color-accent: #4f46e5 !important;
  --scalar-color-green: #047857 !important;
  --scalar-color-red: #b91c1c !important;
  --scalar-color-yellow: #a16207 !important;
  --scalar-color-blue: #0369a1 !important;
  --scalar-color-orange: #c2410c !important;
  --scalar-color-purple: #6d28d9 !important;
  --scalar-color-query: #0f766e !important;
  --scalar-sidebar-color-2: #475569 !important;
  --scalar-sidebar-search-color: #5b6472 !important;
}
.scalar-app .dark-mode, .scalar-app.dark-mode, .dark-mode .scalar-app {
  --scalar-background-1: #0f172a !important;
  --scalar-background-2: #1e293b !important;
  --scalar-background-3: #334155 !important;
  --scalar-background-card: #1e293b !important;
  --scalar-border-color: #334155 !important;
  --scalar-color-1: #f1f5f9 !important;
  --scalar-color-2: #cbd5e1 !important;
  --scalar-color-3: #a8b3c4 !important;
  --scalar-color-accent: #a5b4fc !important;
  --scalar-color-green: #6ee7b7 !important;
  --scalar-color-red: #fca5a5 !important;
  --scalar-color-yellow: #fcd34d !important;
  --scalar-color-blue: #7dd3fc !important;
  --scalar-color-orange: #fdba74 !important;
  --scalar-color-purple: #c4b5fd !important;
  --scalar-color-query: #5eead4 !important;
  --scalar-sidebar-color-2: #cbd5e1 !important;
  --scalar-sidebar-search-color: #a8b3c4 !important;
}
/* Its phone header (a second menu button under the portal's) is not shown; the docs'
   menu and search (which finds every operation) serve phones. */
.scalar-app .t-doc__header {
  display: none !important;
}
.scalar-app .client-libraries__select .sr-only {
  display: inline !important;
}
`;

/**
 * Scalar's markup (@scalar/api-reference 1.46) is adjusted as it appears, since it has no option for
 * any of this. Three of its landmarks duplicate the portal's own (axe: landmark-unique,
 * landmark-no-duplicate-banner, landmark-no-duplicate-main):
 * - its `<main>`s (the reference's and its API client's) sit inside the docs page's main: they
 *   become named regions;
 * - its toast region (vue-sonner) has the portal toaster's label, "Notifications alt+T": renamed;
 * - its phone-width header (components/MobileHeader.vue, a `<header>` outside its `<main>`, rendered
 *   below its `lg` breakpoint only) is a second banner under the portal's: it becomes a named group.
 * And three ARIA errors of 1.46 (axe: aria-allowed-attr, aria-required-children, button-name):
 * - its sidebar entries (@scalar/components 0.19 ScalarSidebarButton) are buttons with
 *   `aria-selected`, which a button may not have: the selected one gets `aria-current="page"`
 *   instead, as later versions of that component give it;
 * - the "More" button of its client-library picker (blocks/scalar-client-selector-block,
 *   ClientDropdown.vue) sits inside the tab list with the tabs, where only tabs may be: it becomes
 *   a tab too (the tab of the other clients; it opens their list);
 * - the copy buttons of its code blocks (@scalar/components ScalarCodeBlockCopy) hide their label,
 *   "Copy", until the block is hovered or focused, so they have no name: "Copy code".
 */
function useScalarMarkupFixes(root: React.RefObject<HTMLDivElement | null>) {
  useEffect(() => {
    const element = root.current;
    if (!element) return;
    const adjust = () => {
      for (const section of element.querySelectorAll('section[aria-label^="Notifications"]')) {
        section.setAttribute("aria-label", "API reference notifications");
      }
      for (const main of element.querySelectorAll("main:not([role])")) {
        main.setAttribute("role", "region");
        main.setAttribute("aria-label", "Interactive API client");
      }
      for (const header of element.querySelectorAll("header:not([role])")) {
        if (header.closest("main")) continue;
        header.setAttribute("role", "group");
        header.setAttribute("aria-label", "API reference menu");
      }
      // Vue sets aria-selected again when the selection changes: hence the attribute filter below.
      for (const entry of element.querySelectorAll("[data-sidebar-id] [aria-selected]:not([role])")) {
        if (entry.getAttribute("aria-selected") === "true") entry.setAttribute("aria-current", "page");
        else entry.removeAttribute("aria-current");
        entry.removeAttribute("aria-selected");
      }
      for (const more of element.querySelectorAll('[role="tablist"] .client-libraries__select:not([role])')) {
        more.setAttribute("role", "tab");
      }
      for (const copy of element.querySelectorAll("button.scalar-code-copy:not([aria-label])")) {
        copy.setAttribute("aria-label", "Copy code");
      }
    };
    adjust();
    const observer = new MutationObserver(adjust);
    observer.observe(element, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-selected"] });
    return () => observer.disconnect();
  }, [root]);
}

/**
 * The API reference, rendered by Scalar from the project's own OpenAPI document. Configured to stay
 * on our origin: no default (remote) fonts, no telemetry, no hosted request proxy or API client.
 */
export function ApiReference({ specUrl }: { specUrl: string }) {
  const root = useRef<HTMLDivElement>(null);
  useScalarMarkupFixes(root);
  return (
    <div ref={root}>
      <ApiReferenceReact
        configuration={{
          url: specUrl,
          // "Ask AI" calls Scalar's hosted agent: off, nothing leaves our origin. (1.46 has no
          // "Generate MCP" button, so no `mcp` option.)
          agent: { disabled: true },
          withDefaultFonts: false,
          telemetry: false,
          hideClientButton: true,
          // Scalar's search answered Ctrl+K as well as the docs search, which already finds
          // every operation; without its search box Scalar registers no shortcut, so one answers.
          hideSearch: true,
          hideDarkModeToggle: true,
          // The page's theme (prefers-color-scheme, app/globals.css), read when the client
          // opens (it renders only in the browser); no toggle of its own.
          forceDarkModeState: window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
          showDeveloperTools: "never",
          documentDownloadType: "json",
          hideTestRequestButton: true,
          layout: "modern",
          theme: "default",
          customCss: SCALAR_OVERRIDES,
        }}
      />
    </div>
  );
}
