"use client";

import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";

/**
 * The API reference, rendered by Scalar from the project's own OpenAPI document. Configured to stay
 * on our origin: no default (remote) fonts, no telemetry, no hosted request proxy or API client.
 */
export function ApiReference({ specUrl }: { specUrl: string }) {
  return (
    <ApiReferenceReact
      configuration={{
        url: specUrl,
        // "Ask AI" and "Generate MCP" call Scalar's hosted services: off, nothing leaves our origin.
        agent: { disabled: true },
        mcp: { disabled: true },
        withDefaultFonts: false,
        telemetry: false,
        hideClientButton: true,
        hideDarkModeToggle: true,
        forceDarkModeState: "light",
        showDeveloperTools: "never",
        documentDownloadType: "json",
        hideTestRequestButton: true,
        layout: "modern",
        theme: "default",
        customCss: `.scalar-app { --scalar-font: var(--font-sans); --scalar-font-code: var(--font-mono); }`,
      }}
    />
  );
}
