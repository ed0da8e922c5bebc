"use client";

import type MiniSearch from "minisearch";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";
import { DOCS_SEARCH_INDEX_URL, DOCS_SEARCH_OPTIONS, type DocsSearchDocument, type DocsSearchResult } from "@/lib/schemas/docs-search";

const MAX_RESULTS = 12;

let loading: Promise<MiniSearch<DocsSearchDocument>> | undefined;

/** MiniSearch and the index built at build time, fetched from our own server on first use only. */
function loadIndex(): Promise<MiniSearch<DocsSearchDocument>> {
  loading ??= Promise.all([
    import("minisearch"),
    fetch(DOCS_SEARCH_INDEX_URL).then((r) => {
      if (!r.ok) throw new Error(`The search index answered ${r.status}`);
      return r.text();
    }),
  ]).then(([{ default: MiniSearchClass }, json]) => MiniSearchClass.loadJSON<DocsSearchDocument>(json, DOCS_SEARCH_OPTIONS));
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

/**
 * Search across the docs pages and the API reference's operations: "/" or Ctrl+K (⌘K) opens it,
 * arrows move through the results, Enter opens one (the combobox pattern of the ARIA APG).
 */
export function DocsSearch() {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [index, setIndex] = useState<MiniSearch<DocsSearchDocument> | null>(null);
  const [failed, setFailed] = useState(false);
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const hintId = useId();

  const show = useCallback(() => {
    setOpen(true);
    loadIndex().then(setIndex, () => setFailed(true));
  }, []);

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      const ctrlK = event.key.toLowerCase() === "k" && (event.ctrlKey || event.metaKey) && !event.altKey;
      const slash = event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.target);
      if (!ctrlK && !slash) return;
      event.preventDefault();
      show();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [show]);

  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  const results: DocsSearchResult[] =
    index && query.trim() ? (index.search(query.trim()).slice(0, MAX_RESULTS) as unknown as DocsSearchResult[]) : [];
  const current = Math.min(active, Math.max(results.length - 1, 0));

  const close = () => {
    setOpen(false);
    setQuery("");
    setActive(0);
  };
  const go = (result: DocsSearchResult | undefined) => {
    if (!result) return;
    close();
    router.push(result.url);
  };
  const onInputKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (results.length === 0) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current + step + results.length) % results.length);
    } else if (event.key === "Escape") {
      // A search field's Escape only clears the text in Chromium; here it closes the search, as in a dialog.
      event.preventDefault();
      close();
    } else if (event.key === "Enter") {
      event.preventDefault();
      go(results[current]);
    }
  };

  const optionId = (i: number) => `${listId}-${i}`;
  let status = "";
  if (failed) status = "The search could not be loaded. Reload the page to try again.";
  else if (!index) status = "Loading the search…";
  else if (query.trim() && results.length === 0) status = `No results for “${query.trim()}”.`;
  else if (results.length > 0) status = `${results.length} result${results.length === 1 ? "" : "s"}.`;

  return (
    <>
      <button
        type="button"
        onClick={show}
        aria-keyshortcuts="/ Control+K"
        className="flex w-full items-center gap-2 rounded-lg bg-white px-3 py-2 text-left text-sm text-slate-600 shadow-sm ring-1 ring-slate-300 ring-inset hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-brand-600"
      >
        <Icon name="search" className="size-4 shrink-0" />
        <span className="flex-1">Search docs</span>
        <kbd className="rounded border border-slate-300 px-1.5 font-sans text-xs text-slate-600">/</kbd>
      </button>
      <Dialog open={open} onClose={close} title="Search the docs">
        <div className="relative">
          <Icon name="search" className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-500" />
          <input
            ref={input}
            type="search"
            role="combobox"
            aria-label="Search the docs and the API reference"
            aria-expanded={results.length > 0}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={results.length > 0 ? optionId(current) : undefined}
            aria-describedby={hintId}
            autoComplete="off"
            spellCheck={false}
            value={query}
            onChange={(event) => {
              setQuery(event.target.value);
              setActive(0);
            }}
            onKeyDown={onInputKey}
            placeholder="Pages, sections, endpoints…"
            className="h-11 w-full rounded-lg border border-slate-300 pr-3 pl-9 text-base focus:border-brand-600 focus:outline-2 focus:outline-brand-600"
          />
        </div>
        <p id={hintId} className="sr-only">
          Arrow keys move through the results; Enter opens one.
        </p>
        <p role="status" className="mt-3 text-sm text-slate-600">
          {status}
        </p>
        <ul id={listId} role="listbox" aria-label="Search results" className="mt-2 max-h-[55vh] space-y-1 overflow-y-auto">
          {results.map((result, i) => (
            <li
              key={result.id}
              id={optionId(i)}
              role="option"
              aria-selected={i === current}
              onMouseMove={() => setActive(i)}
              onClick={() => go(result)}
              className={`cursor-pointer rounded-lg px-3 py-2 ${i === current ? "bg-brand-50 ring-1 ring-brand-300" : ""}`}
            >
              <span className="block text-xs text-slate-600">
                {result.kind === "operation" ? "API reference" : "Guide"} · {result.page}
              </span>
              <span className="block font-medium break-words text-slate-900">{result.title}</span>
              {result.endpoint ? <code className="block font-mono text-xs break-all text-slate-700">{result.endpoint}</code> : null}
              <span className="mt-0.5 line-clamp-2 block text-sm text-slate-600">{result.excerpt}</span>
            </li>
          ))}
        </ul>
      </Dialog>
    </>
  );
}
