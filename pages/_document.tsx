import { Head, Html, Main, NextScript } from "next/document";

/** The document of the hosted sign-in pages, as app/layout.tsx is the portal's. */
export default function HostedPagesDocument() {
  return (
    <Html lang="en" className="bg-slate-50">
      <Head />
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <Main />
        {/* Renders nothing on pages with unstable_runtimeJS: false (every page here). */}
        <NextScript />
      </body>
    </Html>
  );
}
