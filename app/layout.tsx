import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { Toaster } from "@/components/ui/toaster";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Platform Developers", template: "%s · Platform Developers" },
  description: "Build on the social platform: OpenID Connect sign-in, a JSON API and a developer portal.",
  icons: { icon: "/favicon.svg" },
};

export const viewport: Viewport = { themeColor: "#0b1020", width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Reading the request makes every page render per request, which the per-request CSP nonce
  // (proxy.ts) needs: Next stamps the nonce on its scripts only when it renders with the request.
  await headers();
  return (
    <html lang="en" className="bg-slate-50">
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <a
          href="#main"
          className="sr-only z-50 rounded-md bg-white px-4 py-2 text-sm font-medium text-slate-900 shadow focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
        >
          Skip to content
        </a>
        {children}
        <Toaster />
      </body>
    </html>
  );
}
