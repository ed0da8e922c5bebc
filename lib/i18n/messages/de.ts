import type { Catalog } from "./en";

/** The hosted sign-in pages in German (issue 29); keys and placeholders as in ./en.ts. */
export const de: Catalog = {
  "hosted.skip": "Zum Inhalt springen",
  "hosted.passwordNote": "Gib dein Passwort nur auf Seiten der Plattform ein. Apps sehen es nie.",
  "hosted.language": "Sprache",

  "expired.pageTitle": "Anmeldung abgelaufen",
  "expired.title": "Diese Anmeldeanfrage ist abgelaufen",
  "expired.text":
    "Anmeldeanfragen gelten nur eine begrenzte Zeit und können einmal verwendet werden. Geh zurück zur App, von der du kamst, und melde dich erneut an.",
  "expired.home": "Zur Plattform",

  "sandbox.title": "Sandbox",
  "sandbox.text":
    "Dies ist die Testumgebung der App. Nur ihre Sandbox-Testnutzer können sich hier anmelden, und nichts, was hier geschieht, erreicht echte Menschen.",

  "login.pageTitle": "Anmelden",
  "login.title": "Anmelden",
  "login.continueTo": "um mit {app} fortzufahren",
  "login.username": "Benutzername",
  "login.password": "Passwort",
  "login.submit": "Anmelden",
  "login.cancelDevice": "Diese Geräteanmeldung abbrechen",
  "login.cancel": "Abbrechen und zurück zu {app}",
  "login.error.invalid_credentials": "Benutzername oder Passwort ist falsch.",
  "login.error.missing_fields": "Gib deinen Benutzernamen und dein Passwort ein.",
  "login.error.account_disabled":
    "Dieses Konto ist gesperrt und kann sich nicht anmelden. Wende dich an den Support der Plattform, wenn du das für einen Fehler hältst.",
  "login.error.unknown": "Die Anmeldung ist fehlgeschlagen. Versuche es erneut.",
  "retry.tooMany": "Zu viele fehlgeschlagene Anmeldeversuche.",
  "retry.later": "Warte ein paar Minuten und versuche es dann erneut.",
  "retry.now": "Du kannst es jetzt erneut versuchen.",
  "retry.seconds.one": "Versuche es in {count} Sekunde erneut.",
  "retry.seconds.other": "Versuche es in {count} Sekunden erneut.",
  "retry.minutes.one": "Versuche es in {count} Minute erneut.",
  "retry.minutes.other": "Versuche es in {count} Minuten erneut.",

  "consent.pageTitle": "{app} erlauben?",
  "consent.title.first": "{app} Zugriff auf dein Konto erlauben?",
  "consent.title.more": "{app} bittet jetzt um mehr",
  "consent.first": "Diese App bittet zum ersten Mal um Zugriff auf dein Konto.",
  "consent.more.one": "Du hast dieser App schon Zugriff erlaubt. Jetzt bittet sie zusätzlich um eine neue Berechtigung, unten mit „Neu“ markiert.",
  "consent.more.other":
    "Du hast dieser App schon Zugriff erlaubt. Jetzt bittet sie zusätzlich um {count} neue Berechtigungen, unten mit „Neu“ markiert.",
  "consent.again": "Du hast dieser App schon Zugriff erlaubt; sie bittet dich, das zu bestätigen.",
  "consent.builtBy": "Sie wurde von {owner} entwickelt, nicht von der Plattform.",
  "consent.notPlatform": "Sie wurde nicht von der Plattform entwickelt.",
  "consent.signedInAs": "Angemeldet als {name} (@{handle})",
  "consent.switch": "Nicht du? Anderes Konto verwenden",
  "consent.listTitle": "Wenn du zustimmst, kann die App:",
  "consent.listLabel": "Angefragte Berechtigungen",
  "consent.new": "Neu",
  "consent.alreadyAllowed": "(bereits erlaubt)",
  "consent.footer":
    "Dein Passwort wird nie weitergegeben. Die App erhält nur, was hier aufgeführt ist. Du kannst ihr den Zugriff jederzeit unter {link} in deinem Kontomenü entziehen.",
  "consent.connectedApps": "Verbundene Apps",
  "consent.newTab": "(öffnet in einem neuen Tab)",
  "consent.deny": "Ablehnen",
  "consent.allow": "Erlauben",

  "scope.openid": "Wissen, wer du auf der Plattform bist",
  "scope.profile": "Deinen Anzeigenamen und dein Profilbild sehen",
  "scope.offline_access": "Dich in der App angemeldet halten",
  "scope.svc:stats.read": "Deine Kontostatistiken und Punktestände lesen",
  "scope.svc:notifications.read": "Deine Benachrichtigungen lesen",
  "scope.svc:beetle.read": "Deinen Fortschritt im Beetle-Spiel und deine entdeckten Karten lesen",
  "scope.svc:pokes.write": "Andere Menschen in deinem Namen anstupsen",
  "scope.svc:chat.read": "Den globalen Chat lesen",
  "scope.svc:chat.write": "In deinem Namen im globalen Chat schreiben",
  "scope.svc:directory.read": "Menschen im Nutzerverzeichnis nachschlagen",

  "logout.pageTitle": "Abmelden",
  "logout.expiredPageTitle": "Abmeldung abgelaufen",
  "logout.expiredTitle": "Diese Abmeldeanfrage ist abgelaufen",
  "logout.expiredText": "Geh zurück zur App, von der du kamst, und melde dich dort erneut ab.",
  "logout.title": "Von der Plattform abmelden?",
  "logout.askedBy": "{app} hat darum gebeten, dich abzumelden.",
  "logout.text": "Die Abmeldung beendet deine Sitzung auf der Plattform: Jede App, bei der du dich hier angemeldet hast, fragt dich erneut nach einer Anmeldung.",
  "logout.submit": "Abmelden",
  "logout.onlyApp": "Nur von {app} abmelden",
  "logout.stay": "Auf der Plattform angemeldet bleiben",

  "signedOut.pageTitle": "Abgemeldet",
  "signedOut.title": "Du bist abgemeldet",
  "signedOut.text": "Du kannst dieses Fenster schließen oder zur App zurückkehren, von der du kamst.",

  "device.pageTitle.input": "Geräteanmeldung",
  "device.pageTitle.confirm": "Geräteanmeldung bestätigen",
  "device.pageTitle.success": "Auf deinem Gerät angemeldet",
  "device.pageTitle.cancelled": "Geräteanmeldung abgebrochen",
  "device.pageTitle.expired": "Geräteanmeldung abgelaufen",
  "device.expired.title": "Diese Seite ist abgelaufen",
  "device.expired.text": "Seiten zur Geräteanmeldung gelten nur eine begrenzte Zeit. {restart} und gib den Code ein, den dein Gerät anzeigt.",
  "device.expired.restart": "Fang neu an",
  "device.input.title": "Auf deinem Gerät anmelden",
  "device.input.text":
    "Gib den Code ein, den die App auf deinem Fernseher, in der Kommandozeile oder im Chatbot anzeigt. Danach meldest du dich an und wählst, was die App darf.",
  "device.code": "Code",
  "device.continue": "Weiter",
  "device.cancel": "Abbrechen",
  "device.confirm.title": "Ist das der Code auf deinem Gerät?",
  "device.confirm.asksWithOwner": "{app}, eine App von {owner}, möchte dich auf einem Gerät anmelden, das diesen Code anzeigt:",
  "device.confirm.asks": "{app} möchte dich auf einem Gerät anmelden, das diesen Code anzeigt:",
  "device.confirm.codeLabel": "Code {code}",
  "device.confirm.warning":
    "Fahre nur fort, wenn du diese Anmeldung selbst gestartet hast und der Code übereinstimmt. Wenn dir jemand diesen Code oder Link geschickt hat, brich ab: Weitermachen würde dieser Person Zugriff auf dein Konto geben.",
  "device.success.title": "Du bist auf deinem Gerät angemeldet",
  "device.success.text": "{app} kann jetzt auf deinem Gerät weitermachen. Du kannst diese Seite schließen.",
  "device.success.theApp": "Die App",
  "device.success.revoke": "Du kannst der App den Zugriff jederzeit unter {link} wieder entziehen.",
  "device.cancelled.title": "Geräteanmeldung abgebrochen",
  "device.cancelled.text":
    "Mit dem Gerät wurde nichts geteilt. Du kannst diese Seite schließen; um es erneut zu versuchen, starte die Anmeldung auf dem Gerät neu.",
  "device.error.missing": "Gib den Code ein, den dein Gerät anzeigt.",
  "device.error.not_found": "Dieser Code ist ungültig. Prüfe den Code auf deinem Gerät und versuche es erneut.",
  "device.error.expired": "Dieser Code ist abgelaufen. Starte die Anmeldung auf deinem Gerät neu, um einen neuen zu erhalten.",
  "device.error.used": "Dieser Code wurde bereits verwendet. Starte die Anmeldung auf deinem Gerät neu, um einen neuen zu erhalten.",
  "device.error.app_unavailable":
    "Die App, die diesen Code angezeigt hat, kann dich nicht anmelden: Sie ist nicht freigegeben oder wurde gesperrt. Mit ihr wurde nichts geteilt.",
  "device.error.failed":
    "Diese Anmeldung konnte nicht fortgesetzt werden (die Seite war vielleicht zu lange geöffnet). Gib den Code erneut ein.",

  "error.invalid_client.title": "Diese App kann dich nicht anmelden",
  "error.invalid_client.text":
    "Die App, die dich hierher geschickt hat, ist der Plattform unbekannt, noch nicht freigegeben oder gesperrt. Mit ihr wurde nichts geteilt.",
  "error.invalid_redirect_uri.title": "Dieser Anmeldelink ist ungültig",
  "error.invalid_redirect_uri.text":
    "Die App wollte dich an eine Adresse zurückschicken, die sie nicht registriert hat (redirect_uri). Zu deiner Sicherheit haben wir hier angehalten und dich nirgendwohin geschickt.",
  "error.invalid_request.title": "Diese Anmeldeanfrage ist ungültig",
  "error.invalid_request.text":
    "Die App, die dich hierher geschickt hat, hat eine Anfrage gestellt, die die Plattform nicht annehmen kann. Geh zurück zur App und versuche es erneut; wenn es wieder passiert, wende dich an die Entwickler der App.",
  "error.session_not_found.title": "Diese Anmeldeanfrage ist abgelaufen",
  "error.session_not_found.text":
    "Anmeldeanfragen gelten nur eine begrenzte Zeit und können je einmal verwendet werden. Geh zurück zur App und melde dich erneut an.",
  "error.forbidden.title": "Anfrage abgelehnt",
  "error.forbidden.text":
    "Dieses Formular wurde nicht von einer Seite der Plattform abgeschickt. Geh zurück zur App und melde dich erneut an.",
  "error.temporarily_unavailable.title": "Gerade zu viele Anmeldungen",
  "error.temporarily_unavailable.text":
    "Die Plattform prüft gerade sehr viele Passwörter und konnte deines nicht rechtzeitig prüfen. Es wurde nichts geändert. Geh zurück und melde dich in ein paar Sekunden erneut an.",
  "error.server_error.title": "Bei uns ist etwas schiefgelaufen",
  "error.server_error.text": "Der Anmeldedienst konnte deine Anfrage nicht abschließen. Bitte versuche es gleich noch einmal.",
  "error.default.title": "Anmeldung fehlgeschlagen",
  "error.default.text": "Die Plattform konnte diese Anmeldeanfrage nicht abschließen. Geh zurück zur App und versuche es erneut.",
  "error.details": "Technische Details",
  "error.error": "Fehler",
  "error.description": "Details",
  "error.home": "Zur Plattform",
};
