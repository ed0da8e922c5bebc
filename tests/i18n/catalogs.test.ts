import { describe, expect, it } from "vitest";
import { catalogs, LOCALES, negotiateLocale, pathWithoutLocale, plural, translator } from "@/lib/i18n";
import { describeRetryWait } from "@/lib/oidc/login-errors";
import { OIDC_SCOPES, SVC_SCOPES } from "@/lib/scopes";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("the hosted pages' message catalogs (issue 29)", () => {
  const all = catalogs();
  const english = all.en;

  it.each(LOCALES.filter((l) => l !== "en"))("%s has every English key, no other, each with the same placeholders", (locale) => {
    const catalog = all[locale] as Record<string, string>;
    expect(Object.keys(catalog).sort()).toEqual(Object.keys(english).sort());
    for (const [key, text] of Object.entries(english)) {
      expect(catalog[key], key).toBeTypeOf("string");
      expect(catalog[key]!.trim(), key).not.toBe("");
      expect(placeholders(catalog[key]!), `${locale} ${key}`).toEqual(placeholders(text));
    }
  });

  it("has a description for every scope the consent page can show, in every language", () => {
    for (const scope of [...Object.keys(SVC_SCOPES), ...Object.keys(OIDC_SCOPES)]) {
      for (const locale of LOCALES) expect((all[locale] as Record<string, string>)[`scope.${scope}`], `${locale} ${scope}`).toBeTruthy();
    }
    // English stays the catalog of lib/scopes.ts (the portal, the CLI and the OpenAPI document use it).
    for (const [scope, text] of Object.entries({ ...SVC_SCOPES, ...OIDC_SCOPES })) {
      expect((english as Record<string, string>)[`scope.${scope}`]).toBe(text);
    }
  });

  it("fills placeholders and picks plural forms by the language's rules", () => {
    expect(translator("de")("login.cancel", { app: "Chat Bot" })).toBe("Abbrechen und zurück zu Chat Bot");
    expect(plural("fr", "retry.minutes", 1)).toBe("Réessayez dans 1 minute.");
    expect(plural("es", "retry.seconds", 30)).toBe("Vuelve a intentarlo en 30 segundos.");
    expect(describeRetryWait(1_000_090, 1_000_000, "de")).toBe("Zu viele fehlgeschlagene Anmeldeversuche. Versuche es in 2 Minuten erneut.");
    expect(describeRetryWait(1_000_001, 1_000_000)).toBe("Too many failed sign-in attempts. Try again in 1 second.");
  });
});

describe("choosing a hosted page's language", () => {
  it("takes the switch, then the remembered choice, then ui_locales, then Accept-Language, then English", () => {
    expect(negotiateLocale({ switched: "fr", cookie: "de", uiLocales: "es", acceptLanguage: "de" })).toBe("fr");
    expect(negotiateLocale({ switched: "xx", cookie: "de", uiLocales: "es" })).toBe("de");
    expect(negotiateLocale({ uiLocales: "ja es-MX fr", acceptLanguage: "de" })).toBe("es");
    expect(negotiateLocale({ uiLocales: "ja", acceptLanguage: "pt-BR, fr;q=0.5, de;q=0.8" })).toBe("de");
    expect(negotiateLocale({ acceptLanguage: "de;q=0, es;q=0.1" })).toBe("es");
    expect(negotiateLocale({ acceptLanguage: "*, ja" })).toBe("en");
    expect(negotiateLocale({ acceptLanguage: ["de"] })).toBe("en");
    expect(negotiateLocale({})).toBe("en");
  });

  it("keeps the page's own path and query for the switch, without the previous choice", () => {
    expect(pathWithoutLocale("/interaction/device?step=confirm&user_code=AB-CD&lang=de")).toBe("/interaction/device?step=confirm&user_code=AB-CD");
    expect(pathWithoutLocale("/interaction/signed-out?lang=fr")).toBe("/interaction/signed-out");
  });
});
