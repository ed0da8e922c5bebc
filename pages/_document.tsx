import Document, { Head, Html, Main, NextScript, type DocumentContext, type DocumentInitialProps } from "next/document";
import { isLocale } from "@/lib/i18n";

type Props = DocumentInitialProps & { nonce?: string };

/**
 * The document of the hosted sign-in pages, as app/layout.tsx is the portal's. In production they
 * carry no script (`unstable_runtimeJS: false`); `next dev` ignores that flag and adds its runtime,
 * which the CSP (proxy.ts: a per-request nonce with 'strict-dynamic') admits only with the nonce.
 */
export default class HostedPagesDocument extends Document<Props> {
  static async getInitialProps(ctx: DocumentContext): Promise<Props> {
    const initial = await Document.getInitialProps(ctx);
    const nonce = ctx.req?.headers["x-nonce"];
    return { ...initial, ...(typeof nonce === "string" ? { nonce } : {}) };
  }

  render() {
    const { nonce } = this.props;
    // The page's language: hosted pages pass `locale` in their props (lib/i18n).
    // `hosted`: marks the hosted pages' document (the dark palette of app/globals.css is every page's).
    const locale = (this.props.__NEXT_DATA__.props as { pageProps?: { locale?: unknown } } | undefined)?.pageProps?.locale;
    return (
      <Html lang={isLocale(locale) ? locale : "en"} className="hosted bg-slate-50">
        <Head nonce={nonce} />
        <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
          <Main />
          <NextScript nonce={nonce} />
        </body>
      </Html>
    );
  }
}
