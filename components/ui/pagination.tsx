import Link from "next/link";
import { buttonClasses } from "./button";
import { Icon } from "./icon";

/** Keyset pagination: "first page" and "next page" (cursors only go forward). */
export function Pagination({ firstHref, nextHref, isFirst }: { firstHref: string; nextHref: string | null; isFirst: boolean }) {
  if (isFirst && !nextHref) return null;
  return (
    <nav aria-label="Pagination" className="flex items-center justify-between gap-3">
      {isFirst ? <span /> : (
        <Link href={firstHref} className={buttonClasses("secondary", "sm")}>
          <Icon name="arrowLeft" /> First page
        </Link>
      )}
      {nextHref ? (
        <Link href={nextHref} className={buttonClasses("secondary", "sm")}>
          Next page <Icon name="arrowRight" />
        </Link>
      ) : (
        <span className="text-sm text-slate-600">End of list</span>
      )}
    </nav>
  );
}
