import { notFound } from "next/navigation";

/** Any other path under /docs is the docs' own 404 (./not-found.tsx one level up), inside the docs layout. */
export default function MissingDocsPage(): never {
  notFound();
}
