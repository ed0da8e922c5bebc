import type { Metadata } from "next";
import Link from "next/link";
import { DocsPage } from "@/components/docs/docs-page";
import { apiChangelogSchema } from "@/lib/schemas/api-changelog";
import changelogFile from "@/docs/api-changelog.json";

export const metadata: Metadata = { title: "Changelog" };

/** Rendered from the one committed file, docs/api-changelog.json (also read by the OpenAPI check). */
const changelog = apiChangelogSchema.parse(changelogFile);

export default function ChangelogPage() {
  const entries = [...changelog.entries].sort((a, b) => b.date.localeCompare(a.date));
  return (
    <DocsPage
      path="/docs/changelog"
      title="Changelog"
      lead={
        <>
          What changed in <code>/api/v1</code>, newest first. What may change and how removals are announced:{" "}
          <Link href="/docs/changes">Versioning and changes</Link>.
        </>
      }
    >
      {entries.map((entry) => (
        <section key={`${entry.date}-${entry.title}`} aria-labelledby={`entry-${entry.date}`}>
          <h2 id={`entry-${entry.date}`}>
            <time dateTime={entry.date}>{entry.date}</time> — {entry.title}
          </h2>
          <ul>
            {entry.changes.map((change) => (
              <li key={change}>{change}</li>
            ))}
          </ul>
          {entry.breaking.length > 0 && (
            <>
              <h3>Breaking (announced)</h3>
              <ul>
                {entry.breaking.map((b) => (
                  <li key={b.location}>
                    {b.description} <code>{b.location}</code> — deprecated since {b.deprecated}, stops working on{" "}
                    <strong>{b.sunset}</strong>.
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      ))}
    </DocsPage>
  );
}
