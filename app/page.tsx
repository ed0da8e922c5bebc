import Link from "next/link";
import { SiteFooter } from "@/components/layout/site-footer";
import { SiteHeader } from "@/components/layout/site-header";
import { ButtonLink } from "@/components/ui/button-link";
import { Icon, type IconName } from "@/components/ui/icon";
import { env } from "@/lib/env";
import { getCurrentUser } from "@/lib/portal/session";

const STEPS: { title: string; text: string; icon: IconName }[] = [
  { title: "Register", text: "Describe your app, pick its type and the scopes it needs.", icon: "pencil" },
  { title: "Get approved", text: "An admin reviews it. You see the decision and the reason.", icon: "shield" },
  { title: "Get a token", text: "Client credentials for servers, PKCE for apps people sign in to.", icon: "key" },
  { title: "Call the API", text: "Profiles, chat, notifications, the directory and more.", icon: "zap" },
];

const ENDPOINTS = [
  ["GET", "/me", "The signed-in person's profile"],
  ["GET", "/me/notifications", "Pokes, mentions, achievements"],
  ["GET", "/global-chat/messages", "The global chat, newest page first"],
  ["POST", "/global-chat/messages", "Post as the signed-in person"],
  ["POST", "/directory/resolve", "Find people by handle or linked account"],
  ["POST", "/users/{handle}/poke", "Poke someone, once a day"],
];

export default async function LandingPage() {
  const user = await getCurrentUser();
  const { ISSUER, API_URL } = env();
  const sample = `$ ISSUER=${ISSUER}
$ API=${API_URL}
$ curl -s -X POST $ISSUER/protocol/openid-connect/token \\
    -d grant_type=client_credentials \\
    -d client_id=$CLIENT_ID \\
    --data-urlencode client_secret=$CLIENT_SECRET

{ "access_token": "eyJhbGciOiJFUzI1NiIsInR5cCI6…",
  "expires_in": 3600, "token_type": "Bearer",
  "scope": "svc:chat.read" }

$ curl -s $API/global-chat/messages?limit=1 \\
    -H "Authorization: Bearer $ACCESS_TOKEN"

{ "data": { "messages": [ … ], "has_more": true,
            "next_cursor": "1041" } }`;

  return (
    <div className="flex min-h-screen flex-col bg-white">
      <SiteHeader user={user ? { handle: user.handle, displayName: user.displayName, role: user.role } : null} />
      <main id="main" className="flex-1">
        <section className="fixed-palette relative isolate overflow-hidden bg-slate-950 text-white">
          <div
            aria-hidden="true"
            className="absolute inset-0 -z-10 bg-[radial-gradient(60rem_30rem_at_20%_-10%,rgba(99,102,241,0.45),transparent),radial-gradient(40rem_24rem_at_90%_10%,rgba(14,165,233,0.25),transparent)]"
          />
          <div
            aria-hidden="true"
            className="absolute inset-0 -z-10 bg-[linear-gradient(rgba(255,255,255,0.04)_1px,transparent_1px),linear-gradient(90deg,rgba(255,255,255,0.04)_1px,transparent_1px)] bg-[size:48px_48px] [mask-image:linear-gradient(to_bottom,black,transparent)]"
          />
          <div className="mx-auto grid max-w-7xl items-center gap-12 px-4 py-16 sm:px-6 sm:py-24 lg:grid-cols-2 lg:px-8">
            <div>
              <p className="inline-flex items-center gap-2 rounded-full bg-white/10 px-3 py-1 text-sm text-brand-100 ring-1 ring-white/15">
                <span className="size-1.5 rounded-full bg-emerald-400" aria-hidden="true" /> OpenID Connect · JSON API · v1
              </p>
              <h1 className="mt-6 text-4xl font-semibold tracking-tight sm:text-5xl lg:text-6xl">Build on the platform</h1>
              <p className="mt-6 max-w-xl text-lg text-slate-300">
                Sign people in with their platform account, call the API with scoped bearer tokens, and manage your
                apps — from registration and review to secrets and rotation — in one portal.
              </p>
              <div className="mt-10 flex flex-col gap-3 sm:flex-row">
                <ButtonLink href={user ? "/apps" : "/signin?callbackUrl=%2Fapps"} size="lg">
                  {user ? "Go to my apps" : "Start building"} <Icon name="arrowRight" />
                </ButtonLink>
                <ButtonLink href="/docs" size="lg" variant="outline-light">
                  <Icon name="book" /> Read the docs
                </ButtonLink>
              </div>
            </div>
            <figure className="min-w-0 overflow-hidden rounded-2xl bg-slate-900/80 shadow-2xl ring-1 ring-white/10">
              <figcaption className="flex items-center gap-2 border-b border-white/10 px-4 py-3">
                <span className="size-3 rounded-full bg-red-400/80" aria-hidden="true" />
                <span className="size-3 rounded-full bg-amber-400/80" aria-hidden="true" />
                <span className="size-3 rounded-full bg-emerald-400/80" aria-hidden="true" />
                <span className="ml-2 font-mono text-xs text-slate-300">Your first call, in two requests</span>
              </figcaption>
              <pre className="overflow-x-auto p-5 font-mono text-[12.5px] leading-relaxed text-slate-200" tabIndex={0}>
                <code>{sample}</code>
              </pre>
            </figure>
          </div>
        </section>

        <section aria-labelledby="clients-heading" className="mx-auto max-w-7xl px-4 py-16 sm:px-6 sm:py-24 lg:px-8">
          <div className="max-w-2xl">
            <p className="text-sm font-semibold text-brand-700">Two kinds of apps</p>
            <h2 id="clients-heading" className="mt-2 text-3xl font-semibold tracking-tight text-slate-900">
              Act as your app, or on behalf of the people using it
            </h2>
          </div>
          <div className="mt-10 grid gap-6 md:grid-cols-2">
            <div className="rounded-2xl border border-slate-200 p-6 shadow-xs sm:p-8">
              <span className="flex size-11 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
                <Icon name="key" className="size-6" />
              </span>
              <h3 className="mt-5 text-lg font-semibold text-slate-900">API key client</h3>
              <p className="mt-2 text-slate-600">
                For servers, bots and data jobs. A client ID and a secret — revealed once, stored only as a hash,
                rotated without downtime (two secrets may be active at once) — get app-only tokens with the client
                credentials grant.
              </p>
              <ul className="mt-5 space-y-2 text-sm text-slate-700">
                {["Read the global chat", "Resolve people in the directory", "No user sign-in needed"].map((t) => (
                  <li key={t} className="flex gap-2">
                    <Icon name="check" className="mt-0.5 size-4 shrink-0 text-emerald-600" /> {t}
                  </li>
                ))}
              </ul>
            </div>
            <div className="rounded-2xl border border-slate-200 p-6 shadow-xs sm:p-8">
              <span className="flex size-11 items-center justify-center rounded-xl bg-sky-50 text-sky-700">
                <Icon name="user" className="size-6" />
              </span>
              <h3 className="mt-5 text-lg font-semibold text-slate-900">Login client</h3>
              <p className="mt-2 text-slate-600">
                For web, mobile and single-page apps. People sign in on the platform&apos;s own page, approve your
                scopes once, and your app acts for them with authorization code + PKCE — no secret to leak.
              </p>
              <ul className="mt-5 space-y-2 text-sm text-slate-700">
                {["Profiles, stats and notifications", "Post to chat and poke friends", "Rotating refresh tokens"].map((t) => (
                  <li key={t} className="flex gap-2">
                    <Icon name="check" className="mt-0.5 size-4 shrink-0 text-emerald-600" /> {t}
                  </li>
                ))}
              </ul>
            </div>
          </div>
        </section>

        <section aria-labelledby="steps-heading" className="border-y border-slate-200 bg-slate-50">
          <div className="mx-auto max-w-7xl px-4 py-16 sm:px-6 sm:py-20 lg:px-8">
            <h2 id="steps-heading" className="text-2xl font-semibold tracking-tight text-slate-900">
              From zero to your first call
            </h2>
            <ol className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
              {STEPS.map((step, i) => (
                <li key={step.title} className="relative rounded-2xl bg-white p-6 shadow-xs ring-1 ring-slate-200">
                  <div className="flex items-center gap-3">
                    <span className="flex size-9 items-center justify-center rounded-full bg-slate-900 text-sm font-semibold text-white">
                      {i + 1}
                    </span>
                    <Icon name={step.icon} className="size-5 text-brand-600" />
                  </div>
                  <h3 className="mt-4 font-semibold text-slate-900">{step.title}</h3>
                  <p className="mt-1 text-sm text-slate-600">{step.text}</p>
                </li>
              ))}
            </ol>
          </div>
        </section>

        <section aria-labelledby="api-heading" className="mx-auto max-w-7xl px-4 py-16 sm:px-6 sm:py-24 lg:px-8">
          <div className="grid gap-12 lg:grid-cols-5">
            <div className="lg:col-span-2">
              <p className="text-sm font-semibold text-brand-700">The API</p>
              <h2 id="api-heading" className="mt-2 text-3xl font-semibold tracking-tight text-slate-900">
                One consistent JSON API
              </h2>
              <p className="mt-4 text-slate-600">
                Predictable envelopes, one error format with stable codes, cursor pagination and clear limits. The
                reference is generated from the same schemas the API validates with.
              </p>
              <div className="mt-8 flex flex-wrap gap-3">
                <ButtonLink href="/docs/api-reference" variant="secondary">
                  <Icon name="code" /> API reference
                </ButtonLink>
                <ButtonLink href="/docs/errors" variant="ghost">
                  Errors and limits <Icon name="arrowRight" />
                </ButtonLink>
              </div>
            </div>
            <ul className="divide-y divide-slate-100 overflow-hidden rounded-2xl border border-slate-200 lg:col-span-3">
              {ENDPOINTS.map(([method, path, text]) => (
                <li key={`${method} ${path}`} className="flex flex-col gap-1 px-5 py-4 sm:flex-row sm:items-center sm:gap-4">
                  <span
                    className={`w-14 shrink-0 font-mono text-xs font-bold ${method === "GET" ? "text-emerald-700" : "text-brand-700"}`}
                  >
                    {method}
                  </span>
                  <code className="min-w-0 font-mono text-sm break-all text-slate-900">{path}</code>
                  <span className="text-sm text-slate-600 sm:ml-auto sm:text-right">{text}</span>
                </li>
              ))}
            </ul>
          </div>
        </section>

        <section className="px-4 pb-16 sm:px-6 sm:pb-24 lg:px-8">
          <div className="fixed-palette mx-auto flex max-w-7xl flex-col items-start gap-6 rounded-3xl bg-brand-600 px-6 py-10 text-white sm:px-12 md:flex-row md:items-center md:justify-between">
            <div>
              <h2 className="text-2xl font-semibold tracking-tight">Ready to build?</h2>
              <p className="mt-2 text-brand-100">Register your first app in a minute. Review usually comes the same day.</p>
            </div>
            <div className="flex flex-wrap gap-3">
              <ButtonLink href={user ? "/apps/new" : "/signin?callbackUrl=%2Fapps%2Fnew"} size="lg" variant="light">
                Register an app
              </ButtonLink>
              <Link href="/docs" className="inline-flex h-12 items-center px-2 font-medium text-white underline-offset-4 hover:underline">
                Getting started guide
              </Link>
            </div>
          </div>
        </section>
      </main>
      <SiteFooter />
    </div>
  );
}
