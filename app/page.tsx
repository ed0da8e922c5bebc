export default function LandingPage() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <h1 className="text-4xl font-bold tracking-tight">Build on the platform</h1>
      <p className="mt-4 text-lg text-slate-600">
        Sign users in with OpenID Connect, call the JSON API with scoped bearer tokens, and manage your apps in the
        developer portal.
      </p>
      <nav className="mt-8 flex flex-wrap gap-4">
        <a className="rounded-md bg-slate-900 px-4 py-2 text-white" href="/apps">Developer portal</a>
        <a className="rounded-md border px-4 py-2" href="/docs">Documentation</a>
        <a className="rounded-md border px-4 py-2" href="/api/v1/openapi.json">API base: /api/v1</a>
      </nav>
    </main>
  );
}
