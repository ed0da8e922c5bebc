import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInButton } from "@/components/auth/sign-in-button";
import { Alert } from "@/components/ui/alert";
import { Icon } from "@/components/ui/icon";
import { env } from "@/lib/env";
import { resolveReturnPath } from "@/lib/http/return-url";
import { getCurrentUser } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Sign in" };

/** next-auth's error codes, in words a developer can act on. */
const ERRORS: Record<string, string> = {
  OAuthSignin: "We could not reach the sign-in service. Try again in a moment.",
  OAuthCallback: "The sign-in did not complete. Try again.",
  Callback: "The sign-in did not complete. Try again.",
  AccessDenied: "Sign-in was cancelled.",
  SessionRequired: "Sign in to continue.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  // Only a path on our own origin may be the destination after sign-in (no open redirect).
  const callbackUrl = resolveReturnPath(params.callbackUrl, env().APP_URL);
  if (await getCurrentUser()) redirect(callbackUrl);
  const errorCode = typeof params.error === "string" ? params.error : undefined;
  const error = errorCode ? (ERRORS[errorCode] ?? "Sign-in failed. Try again.") : undefined;

  return (
    <main id="main" className="relative overflow-hidden">
      <div
        aria-hidden="true"
        className="absolute inset-x-0 top-0 h-72 bg-gradient-to-b from-brand-100/70 via-brand-50/40 to-transparent"
      />
      <div className="relative mx-auto flex max-w-md flex-col px-4 py-16 sm:py-24">
        <div className="rounded-2xl border border-slate-200 bg-white p-8 shadow-xl shadow-black/5">
          <div className="flex size-12 items-center justify-center rounded-xl bg-brand-600 text-white">
            <Icon name="lock" className="size-6" />
          </div>
          <h1 className="mt-6 text-2xl font-semibold tracking-tight">Sign in to the developer portal</h1>
          <p className="mt-2 text-sm text-slate-600">
            Use the same account you use on the platform. You will sign in on the platform&apos;s own sign-in page and
            come straight back here.
          </p>
          {error ? (
            <div className="mt-6">
              <Alert tone="danger" role="alert">
                {error}
              </Alert>
            </div>
          ) : null}
          <div className="mt-8">
            <SignInButton callbackUrl={callbackUrl} />
          </div>
          <ul className="mt-8 space-y-3 border-t border-slate-100 pt-6 text-sm text-slate-600">
            <li className="flex gap-3">
              <Icon name="key" className="mt-0.5 size-4 shrink-0 text-brand-600" />
              Register API key clients and login clients, and manage their secrets.
            </li>
            <li className="flex gap-3">
              <Icon name="shield" className="mt-0.5 size-4 shrink-0 text-brand-600" />
              Every app is reviewed before it can get tokens.
            </li>
          </ul>
        </div>
        <p className="mt-6 text-center text-sm text-slate-600">
          Just looking?{" "}
          <Link href="/docs" className="font-medium text-brand-700 hover:underline">
            Read the documentation
          </Link>
        </p>
      </div>
    </main>
  );
}
