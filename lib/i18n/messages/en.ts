/**
 * The hosted sign-in pages' words in English: the reference catalog. Every other
 * language has exactly these keys (the `Catalog` type makes a missing or extra key a type error;
 * tests/i18n/catalogs.test.ts checks the same at run time, placeholders included).
 *
 * `{name}` is a placeholder filled by `translate` (text) or `Rich` (React nodes, e.g. a bold app
 * name). Keys ending in `.one` / `.other` are plural forms chosen by Intl.PluralRules.
 */
export const en = {
  "hosted.skip": "Skip to content",
  "hosted.passwordNote": "Only enter your password on pages of the platform. Apps never see it.",
  "hosted.language": "Language",

  "expired.pageTitle": "Sign-in expired",
  "expired.title": "This sign-in request has expired",
  "expired.text":
    "Sign-in requests are valid for a limited time and can be used once. Go back to the app you came from and start signing in again.",
  "expired.home": "Go to the platform",

  "sandbox.title": "Sandbox",
  "sandbox.text":
    "This is the app's test environment. Only its sandbox test users can sign in here, and nothing done here reaches real people.",

  "login.pageTitle": "Sign in",
  "login.title": "Sign in",
  "login.continueTo": "to continue to {app}",
  "login.username": "Username",
  "login.password": "Password",
  "login.submit": "Sign in",
  "login.cancelDevice": "Cancel this device sign-in",
  "login.cancel": "Cancel and return to {app}",
  "login.error.invalid_credentials": "Incorrect username or password.",
  "login.error.missing_fields": "Enter your username and password.",
  "login.error.account_disabled":
    "This account is disabled, so it cannot sign in. Contact the platform's support if you think this is a mistake.",
  "login.error.unknown": "Sign-in failed. Try again.",
  "login.error.invalid_code": "That code is not right. Enter the code your authenticator app shows now, or one of your recovery codes.",
  "login.error.missing_code": "Enter the code from your authenticator app, or a recovery code.",
  "login.error.passkey_failed": "That passkey did not sign you in. Try again, or sign in with your password.",
  "secondFactor.title": "Two-step verification",
  "secondFactor.stepUp": "{app} asks for your second factor. You are signed in as {handle}.",
  "secondFactor.signingIn": "Signing in as {handle} to continue to {app}.",
  "secondFactor.code": "Code",
  "secondFactor.hint": "The 6-digit code your authenticator app shows, or one of your recovery codes (each works once).",
  "secondFactor.hintRecovery": "One of your recovery codes (each works once), if you cannot use your passkey.",
  "secondFactor.submit": "Verify",
  "login.or": "or",
  "passkey.signIn": "Sign in with a passkey",
  "passkey.use": "Use a passkey",
  "passkey.failed": "The passkey sign-in was cancelled or did not work. Try again.",
  "retry.tooMany": "Too many failed sign-in attempts.",
  "retry.later": "Wait a few minutes, then try again.",
  "retry.now": "You can try again now.",
  "retry.seconds.one": "Try again in {count} second.",
  "retry.seconds.other": "Try again in {count} seconds.",
  "retry.minutes.one": "Try again in {count} minute.",
  "retry.minutes.other": "Try again in {count} minutes.",

  "consent.pageTitle": "Allow {app}?",
  "consent.title.first": "Allow {app} to access your account?",
  "consent.title.more": "{app} now asks for more",
  "consent.first": "This is the first time this app asks for access to your account.",
  "consent.more.one": "You allowed this app before. It now also asks for one new permission, marked “New” below.",
  "consent.more.other": "You allowed this app before. It now also asks for {count} new permissions, marked “New” below.",
  "consent.again": "You allowed this app before; it asks you to confirm.",
  "consent.builtBy": "It is built by {owner}, not by the platform.",
  "consent.notPlatform": "It is not built by the platform.",
  "consent.agent.title": "Allow an AI agent to access your account?",
  "consent.agent.says": "It says it is {app}. The platform has not checked that name.",
  "consent.agent.saysWithLogo": "It says it is {app} and that the logo above is its own. The platform has not checked that name or logo.",
  "consent.agent.verified": "Its client ID is verified to belong to {domain}:",
  "consent.agent.unverified": "It registered itself with the platform: no one has verified who publishes it.",
  "consent.agent.notReviewed": "Not reviewed by the platform. Allow it only if you started this connection yourself, from an assistant you use.",
  "consent.agent.trusted": "The platform's administrators trust agents from {domain}.",
  "consent.signedInAs": "Signed in as {name} (@{handle})",
  "consent.switch": "Not you? Use another account",
  "consent.listTitle": "If you allow it, the app will be able to:",
  "consent.listLabel": "Requested permissions",
  "consent.new": "New",
  "consent.alreadyAllowed": "(already allowed)",
  "consent.footer":
    "Your password is never shared. The app only gets what is listed here. You can revoke its access at any time under {link} in your account menu.",
  "consent.connectedApps": "Connected apps",
  "consent.newTab": "(opens in a new tab)",
  "consent.deny": "Deny",
  "consent.allow": "Allow",

  "identity.homepage": "Homepage",
  "identity.privacyPolicy": "Privacy policy",
  "identity.terms": "Terms of service",
  "identity.links": "Links of the app",
  "identity.about": "About {app}",
  "identity.by": "by {name} {handle}",
  "identity.ownerUnknown": "Owner unknown",

  "scope.openid": "Know who you are on the platform",
  "scope.profile": "See your display name and profile picture",
  "scope.offline_access": "Stay signed in to the app",
  "scope.svc:stats.read": "Read your account statistics and scores",
  "scope.svc:notifications.read": "Read your notifications",
  "scope.svc:beetle.read": "Read your Beetle game progress and discovered cards",
  "scope.svc:pokes.write": "Poke other people on your behalf",
  "scope.svc:chat.read": "Read the global chat",
  "scope.svc:chat.write": "Post to the global chat as you",
  "scope.svc:directory.read": "Look people up in the user directory",

  "logout.pageTitle": "Sign out",
  "logout.expiredPageTitle": "Sign-out expired",
  "logout.expiredTitle": "This sign-out request has expired",
  "logout.expiredText": "Go back to the app you came from and sign out again.",
  "logout.title": "Sign out of the platform?",
  "logout.askedBy": "{app} asked to sign you out.",
  "logout.text": "Signing out ends your platform session: every app you signed in to here will ask you to sign in again.",
  "logout.submit": "Sign out",
  "logout.onlyApp": "Only sign out of {app}",
  "logout.stay": "Stay signed in to the platform",

  "signedOut.pageTitle": "Signed out",
  "signedOut.title": "You are signed out",
  "signedOut.text": "You can close this window, or go back to the app you came from.",

  "device.pageTitle.input": "Device sign-in",
  "device.pageTitle.confirm": "Confirm device sign-in",
  "device.pageTitle.success": "Signed in on your device",
  "device.pageTitle.cancelled": "Device sign-in cancelled",
  "device.pageTitle.expired": "Device sign-in expired",
  "device.expired.title": "This page has expired",
  "device.expired.text": "Device sign-in pages are valid for a limited time. {restart} and enter the code shown on your device.",
  "device.expired.restart": "Start again",
  "device.input.title": "Sign in on your device",
  "device.input.text":
    "Enter the code shown by the app on your TV, command line or chat bot. Next you sign in and choose what the app may do.",
  "device.code": "Code",
  "device.continue": "Continue",
  "device.cancel": "Cancel",
  "device.confirm.title": "Is this the code on your device?",
  "device.confirm.asksWithOwner": "{app}, an app built by {owner}, asks to sign in on a device showing this code:",
  "device.confirm.asks": "{app} asks to sign in on a device showing this code:",
  "device.confirm.codeLabel": "Code {code}",
  "device.confirm.warning":
    "Only continue if you started this sign-in yourself and the code matches. If someone sent you this code or link, cancel: continuing would give them access to your account.",
  "device.success.title": "You're signed in on your device",
  "device.success.text": "{app} can now continue on your device. You can close this page.",
  "device.success.theApp": "The app",
  "device.success.revoke": "You can take the app's access back at any time under {link}.",
  "device.cancelled.title": "Device sign-in cancelled",
  "device.cancelled.text": "Nothing was shared with the device. You can close this page; to try again, start signing in on the device.",
  "device.error.missing": "Enter the code shown on your device.",
  "device.error.not_found": "That code is not valid. Check the code on your device and try again.",
  "device.error.expired": "That code has expired. Start signing in again on your device to get a new one.",
  "device.error.used": "That code was already used. Start signing in again on your device to get a new one.",
  "device.error.app_unavailable":
    "The app that showed this code can't sign you in: it is not approved or was suspended. Nothing was shared with it.",
  "device.error.failed": "This sign-in could not continue (the page may have been open too long). Enter the code again.",

  "error.invalid_client.title": "This app can't sign you in",
  "error.invalid_client.text":
    "The app that sent you here is unknown to the platform, not approved yet, or suspended. Nothing was shared with it.",
  "error.invalid_redirect_uri.title": "This sign-in link isn't valid",
  "error.invalid_redirect_uri.text":
    "The app asked to send you back to an address it has not registered (redirect_uri). For your safety we stopped here and did not send you anywhere.",
  "error.invalid_request.title": "This sign-in request isn't valid",
  "error.invalid_request.text":
    "The app that sent you here made a request the platform cannot accept. Go back to the app and try again; if it keeps happening, contact the app's developer.",
  "error.session_not_found.title": "This sign-in request has expired",
  "error.session_not_found.text":
    "Sign-in requests are only valid for a limited time, and each can be used once. Go back to the app and start signing in again.",
  "error.forbidden.title": "Request refused",
  "error.forbidden.text":
    "This form was submitted from somewhere other than the platform's own page. Go back to the app and start signing in again.",
  "error.temporarily_unavailable.title": "Too many sign-ins right now",
  "error.temporarily_unavailable.text":
    "The platform is checking many passwords at this moment and could not check yours in time. Nothing was changed. Go back and sign in again in a few seconds.",
  "error.server_error.title": "Something went wrong on our side",
  "error.server_error.text": "The sign-in service could not complete your request. Please try again in a moment.",
  "error.default.title": "Sign-in failed",
  "error.default.text": "The platform could not complete this sign-in request. Go back to the app and try again.",
  "error.details": "Technical details",
  "error.error": "Error",
  "error.description": "Details",
  "error.home": "Go to the platform",
} as const;

export type MessageKey = keyof typeof en;

/** Every language's catalog: the same keys as English, each a string. */
export type Catalog = { readonly [K in MessageKey]: string };
