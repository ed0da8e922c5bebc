import { de } from "./messages/de";
import { en, type Catalog, type MessageKey } from "./messages/en";
import { es } from "./messages/es";
import { fr } from "./messages/fr";

/**
 * The hosted sign-in pages' languages: login, second factor, consent, device, logout and
 * error pages. The portal stays in English. A page's language is chosen, in this order, by
 * 1. the person's own choice on the page's language switch (`?lang=de`, kept in LOCALE_COOKIE),
 * 2. the app's `ui_locales` (OpenID Connect Core §3.1.2.1: the person's preferred languages,
 *    space-separated BCP 47 tags, in order),
 * 3. the browser's `Accept-Language`, by quality,
 * 4. English.
 */
export const LOCALES = ["en", "de", "es", "fr"] as const;
export type Locale = (typeof LOCALES)[number];
export type { MessageKey };

/** Each language by its own name, as the language switch lists them. */
export const LOCALE_NAMES: Record<Locale, string> = { en: "English", de: "Deutsch", es: "Español", fr: "Français" };

/** The cookie that keeps a language chosen on the switch (a year; not a secret; all hosted pages). */
export const LOCALE_COOKIE = "platform_locale";
/** The query parameter of the language switch's links. */
export const LOCALE_QUERY = "lang";

const CATALOGS: Record<Locale, Catalog> = { en, de, es, fr };

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/** The supported language a BCP 47 tag names (`de-AT` → de), or null. */
function localeOfTag(tag: string): Locale | null {
  const primary = tag.trim().split(/[-_]/)[0]?.toLowerCase();
  return isLocale(primary) ? primary : null;
}

/** An `Accept-Language` header's languages, best first (RFC 9110 §12.5.4); q=0 means "not this one". */
function acceptedLocales(header: string): Locale[] {
  const ranked = header
    .split(",")
    .slice(0, 32)
    .map((part, index) => {
      const [tag = "", ...params] = part.split(";");
      const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      const quality = q === undefined ? 1 : Number(q);
      return { locale: localeOfTag(tag), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((entry): entry is { locale: Locale; quality: number; index: number } => entry.locale !== null && entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  return ranked.map((entry) => entry.locale);
}

export interface LocaleInputs {
  /** The language switch's `?lang=` on this request. */
  switched?: unknown;
  /** LOCALE_COOKIE's value. */
  cookie?: unknown;
  /** The authorization request's `ui_locales`. */
  uiLocales?: unknown;
  /** The request's `Accept-Language` header. */
  acceptLanguage?: unknown;
}

export function negotiateLocale({ switched, cookie, uiLocales, acceptLanguage }: LocaleInputs): Locale {
  if (isLocale(switched)) return switched;
  if (isLocale(cookie)) return cookie;
  if (typeof uiLocales === "string") {
    for (const tag of uiLocales.split(/\s+/).slice(0, 16)) {
      const locale = localeOfTag(tag);
      if (locale) return locale;
    }
  }
  if (typeof acceptLanguage === "string") return acceptedLocales(acceptLanguage.slice(0, 1024))[0] ?? "en";
  return "en";
}

/** `{name}` placeholders filled from `values`; an unknown placeholder stays as written (a test catches it). */
function fill(template: string, values: Record<string, string | number> | undefined): string {
  if (!values) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** The words of one language: `t("login.title")`, `t("login.cancel", { app })`. */
export function translator(locale: Locale): Translate {
  const catalog = CATALOGS[locale];
  return (key, values) => fill(catalog[key], values);
}

/** The raw template of a key (for `Rich`, which fills placeholders with React nodes). */
export function template(locale: Locale, key: MessageKey): string {
  return CATALOGS[locale][key];
}

const pluralRules = new Map<Locale, Intl.PluralRules>();

/** The `.one` or `.other` form of a counted message, by the language's plural rules. */
export function plural(locale: Locale, base: "retry.seconds" | "retry.minutes" | "consent.more", count: number): string {
  let rules = pluralRules.get(locale);
  if (!rules) pluralRules.set(locale, (rules = new Intl.PluralRules(locale)));
  const form = rules.select(count) === "one" ? "one" : "other";
  return translator(locale)(`${base}.${form}`, { count });
}

/** Every language's catalog, for the catalog test. */
export function catalogs(): Readonly<Record<Locale, Catalog>> {
  return CATALOGS;
}

/** A scope's plain-words description in `locale` (lib/scopes.ts's English for unknown scopes). */
export function scopeDescription(locale: Locale, scope: string, fallback: string): string {
  const key = `scope.${scope}`;
  return key in en ? CATALOGS[locale][key as MessageKey] : fallback;
}

/** A hosted page's own path and query without the switch's `lang`, for the switch's links. */
export function pathWithoutLocale(url: string): string {
  const parsed = new URL(url, "http://localhost");
  parsed.searchParams.delete(LOCALE_QUERY);
  return `${parsed.pathname}${parsed.search}`;
}

/** The Set-Cookie value that remembers a language chosen on the switch. */
export function localeCookie(locale: Locale, secure: boolean): string {
  return `${LOCALE_COOKIE}=${locale}; Path=/; Max-Age=31536000; SameSite=Lax${secure ? "; Secure" : ""}`;
}
