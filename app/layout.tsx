import type { Metadata } from "next";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Platform Developers", template: "%s · Platform Developers" },
  description: "Build on the social platform: OpenID Connect sign-in, a JSON API and a developer portal.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-white text-slate-900 antialiased">{children}</body>
    </html>
  );
}
