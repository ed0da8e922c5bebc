import type { AppProps } from "next/app";
import "@/app/globals.css";

/**
 * The Pages Router holds only the hosted sign-in pages (pages/interaction): they are plain HTML
 * forms and ship no JavaScript (`unstable_runtimeJS: false`), which the App Router cannot do (it
 * always sends the React runtime). Same stylesheet as the portal, so the same look.
 */
export default function HostedPagesApp({ Component, pageProps }: AppProps) {
  return <Component {...pageProps} />;
}
