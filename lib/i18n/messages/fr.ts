import type { Catalog } from "./en";

/** The hosted sign-in pages in French (issue 29); keys and placeholders as in ./en.ts. */
export const fr: Catalog = {
  "hosted.skip": "Aller au contenu",
  "hosted.passwordNote": "Ne saisissez votre mot de passe que sur les pages de la plateforme. Les applications ne le voient jamais.",
  "hosted.language": "Langue",

  "expired.pageTitle": "Connexion expirée",
  "expired.title": "Cette demande de connexion a expiré",
  "expired.text":
    "Les demandes de connexion ne sont valables qu’un temps limité et ne servent qu’une fois. Retournez dans l’application d’où vous venez et reconnectez-vous.",
  "expired.home": "Aller à la plateforme",

  "sandbox.title": "Bac à sable",
  "sandbox.text":
    "Ceci est l’environnement de test de l’application. Seuls ses utilisateurs de test peuvent se connecter ici, et rien de ce qui s’y passe n’atteint de vraies personnes.",

  "login.pageTitle": "Connexion",
  "login.title": "Connexion",
  "login.continueTo": "pour continuer vers {app}",
  "login.username": "Nom d’utilisateur",
  "login.password": "Mot de passe",
  "login.submit": "Se connecter",
  "login.cancelDevice": "Annuler cette connexion d’appareil",
  "login.cancel": "Annuler et revenir à {app}",
  "login.error.invalid_credentials": "Nom d’utilisateur ou mot de passe incorrect.",
  "login.error.missing_fields": "Saisissez votre nom d’utilisateur et votre mot de passe.",
  "login.error.account_disabled":
    "Ce compte est désactivé et ne peut donc pas se connecter. Contactez l’assistance de la plateforme si vous pensez qu’il s’agit d’une erreur.",
  "login.error.unknown": "La connexion a échoué. Réessayez.",
  "login.error.invalid_code": "Ce code n’est pas le bon. Saisissez le code affiché en ce moment par votre application d’authentification, ou l’un de vos codes de récupération.",
  "login.error.missing_code": "Saisissez le code de votre application d’authentification, ou un code de récupération.",
  "secondFactor.title": "Validation en deux étapes",
  "secondFactor.stepUp": "{app} demande votre second facteur. Vous êtes connecté en tant que {handle}.",
  "secondFactor.signingIn": "Connexion en tant que {handle} pour continuer vers {app}.",
  "secondFactor.code": "Code",
  "secondFactor.hint": "Le code à 6 chiffres affiché par votre application d’authentification, ou l’un de vos codes de récupération (chacun ne sert qu’une fois).",
  "secondFactor.submit": "Valider",
  "retry.tooMany": "Trop de tentatives de connexion échouées.",
  "retry.later": "Patientez quelques minutes, puis réessayez.",
  "retry.now": "Vous pouvez réessayer maintenant.",
  "retry.seconds.one": "Réessayez dans {count} seconde.",
  "retry.seconds.other": "Réessayez dans {count} secondes.",
  "retry.minutes.one": "Réessayez dans {count} minute.",
  "retry.minutes.other": "Réessayez dans {count} minutes.",

  "consent.pageTitle": "Autoriser {app} ?",
  "consent.title.first": "Autoriser {app} à accéder à votre compte ?",
  "consent.title.more": "{app} demande maintenant davantage",
  "consent.first": "C’est la première fois que cette application demande l’accès à votre compte.",
  "consent.more.one":
    "Vous avez déjà autorisé cette application. Elle demande maintenant aussi une nouvelle autorisation, marquée « Nouveau » ci-dessous.",
  "consent.more.other":
    "Vous avez déjà autorisé cette application. Elle demande maintenant aussi {count} nouvelles autorisations, marquées « Nouveau » ci-dessous.",
  "consent.again": "Vous avez déjà autorisé cette application ; elle vous demande de confirmer.",
  "consent.builtBy": "Elle est développée par {owner}, pas par la plateforme.",
  "consent.notPlatform": "Elle n’est pas développée par la plateforme.",
  "consent.signedInAs": "Connecté en tant que {name} (@{handle})",
  "consent.switch": "Ce n’est pas vous ? Utiliser un autre compte",
  "consent.listTitle": "Si vous l’autorisez, l’application pourra :",
  "consent.listLabel": "Autorisations demandées",
  "consent.new": "Nouveau",
  "consent.alreadyAllowed": "(déjà autorisé)",
  "consent.footer":
    "Votre mot de passe n’est jamais partagé. L’application ne reçoit que ce qui est indiqué ici. Vous pouvez lui retirer l’accès à tout moment dans {link}, dans le menu de votre compte.",
  "consent.connectedApps": "Applications connectées",
  "consent.newTab": "(s’ouvre dans un nouvel onglet)",
  "consent.deny": "Refuser",
  "consent.allow": "Autoriser",

  "identity.homepage": "Site web",
  "identity.privacyPolicy": "Politique de confidentialité",
  "identity.terms": "Conditions d’utilisation",
  "identity.links": "Liens de l’application",
  "identity.about": "À propos de {app}",
  "identity.by": "par {name} {handle}",
  "identity.ownerUnknown": "Auteur inconnu",

  "scope.openid": "Savoir qui vous êtes sur la plateforme",
  "scope.profile": "Voir votre nom affiché et votre photo de profil",
  "scope.offline_access": "Vous garder connecté à l’application",
  "scope.svc:stats.read": "Lire les statistiques et les scores de votre compte",
  "scope.svc:notifications.read": "Lire vos notifications",
  "scope.svc:beetle.read": "Lire votre progression dans le jeu Beetle et les cartes découvertes",
  "scope.svc:pokes.write": "Envoyer des pokes à d’autres personnes en votre nom",
  "scope.svc:chat.read": "Lire le chat global",
  "scope.svc:chat.write": "Publier dans le chat global en votre nom",
  "scope.svc:directory.read": "Rechercher des personnes dans l’annuaire des utilisateurs",

  "logout.pageTitle": "Déconnexion",
  "logout.expiredPageTitle": "Déconnexion expirée",
  "logout.expiredTitle": "Cette demande de déconnexion a expiré",
  "logout.expiredText": "Retournez dans l’application d’où vous venez et déconnectez-vous à nouveau.",
  "logout.title": "Se déconnecter de la plateforme ?",
  "logout.askedBy": "{app} a demandé à vous déconnecter.",
  "logout.text":
    "Se déconnecter met fin à votre session sur la plateforme : chaque application à laquelle vous vous êtes connecté ici vous demandera de vous reconnecter.",
  "logout.submit": "Se déconnecter",
  "logout.onlyApp": "Se déconnecter uniquement de {app}",
  "logout.stay": "Rester connecté à la plateforme",

  "signedOut.pageTitle": "Déconnecté",
  "signedOut.title": "Vous êtes déconnecté",
  "signedOut.text": "Vous pouvez fermer cette fenêtre ou retourner dans l’application d’où vous venez.",

  "device.pageTitle.input": "Connexion d’un appareil",
  "device.pageTitle.confirm": "Confirmer la connexion de l’appareil",
  "device.pageTitle.success": "Connecté sur votre appareil",
  "device.pageTitle.cancelled": "Connexion de l’appareil annulée",
  "device.pageTitle.expired": "Connexion de l’appareil expirée",
  "device.expired.title": "Cette page a expiré",
  "device.expired.text":
    "Les pages de connexion d’appareil ne sont valables qu’un temps limité. {restart} et saisissez le code affiché sur votre appareil.",
  "device.expired.restart": "Recommencez",
  "device.input.title": "Connectez-vous sur votre appareil",
  "device.input.text":
    "Saisissez le code affiché par l’application sur votre télévision, votre ligne de commande ou votre chatbot. Ensuite, vous vous connectez et choisissez ce que l’application peut faire.",
  "device.code": "Code",
  "device.continue": "Continuer",
  "device.cancel": "Annuler",
  "device.confirm.title": "Est-ce le code affiché sur votre appareil ?",
  "device.confirm.asksWithOwner": "{app}, une application développée par {owner}, demande à se connecter sur un appareil affichant ce code :",
  "device.confirm.asks": "{app} demande à se connecter sur un appareil affichant ce code :",
  "device.confirm.codeLabel": "Code {code}",
  "device.confirm.warning":
    "Ne continuez que si vous avez lancé cette connexion vous-même et que le code correspond. Si quelqu’un vous a envoyé ce code ou ce lien, annulez : continuer lui donnerait accès à votre compte.",
  "device.success.title": "Vous êtes connecté sur votre appareil",
  "device.success.text": "{app} peut maintenant continuer sur votre appareil. Vous pouvez fermer cette page.",
  "device.success.theApp": "L’application",
  "device.success.revoke": "Vous pouvez retirer l’accès à l’application à tout moment dans {link}.",
  "device.cancelled.title": "Connexion de l’appareil annulée",
  "device.cancelled.text":
    "Rien n’a été partagé avec l’appareil. Vous pouvez fermer cette page ; pour réessayer, relancez la connexion sur l’appareil.",
  "device.error.missing": "Saisissez le code affiché sur votre appareil.",
  "device.error.not_found": "Ce code n’est pas valide. Vérifiez le code sur votre appareil et réessayez.",
  "device.error.expired": "Ce code a expiré. Relancez la connexion sur votre appareil pour en obtenir un nouveau.",
  "device.error.used": "Ce code a déjà été utilisé. Relancez la connexion sur votre appareil pour en obtenir un nouveau.",
  "device.error.app_unavailable":
    "L’application qui a affiché ce code ne peut pas vous connecter : elle n’est pas approuvée ou a été suspendue. Rien n’a été partagé avec elle.",
  "device.error.failed":
    "Cette connexion n’a pas pu continuer (la page est peut-être restée ouverte trop longtemps). Saisissez à nouveau le code.",

  "error.invalid_client.title": "Cette application ne peut pas vous connecter",
  "error.invalid_client.text":
    "L’application qui vous a envoyé ici est inconnue de la plateforme, pas encore approuvée ou suspendue. Rien n’a été partagé avec elle.",
  "error.invalid_redirect_uri.title": "Ce lien de connexion n’est pas valide",
  "error.invalid_redirect_uri.text":
    "L’application a demandé à vous renvoyer vers une adresse qu’elle n’a pas enregistrée (redirect_uri). Pour votre sécurité, nous nous sommes arrêtés ici sans vous envoyer nulle part.",
  "error.invalid_request.title": "Cette demande de connexion n’est pas valide",
  "error.invalid_request.text":
    "L’application qui vous a envoyé ici a fait une demande que la plateforme ne peut pas accepter. Retournez dans l’application et réessayez ; si cela se reproduit, contactez son développeur.",
  "error.session_not_found.title": "Cette demande de connexion a expiré",
  "error.session_not_found.text":
    "Les demandes de connexion ne sont valables qu’un temps limité et ne servent qu’une fois. Retournez dans l’application et reconnectez-vous.",
  "error.forbidden.title": "Demande refusée",
  "error.forbidden.text":
    "Ce formulaire a été envoyé depuis un autre endroit que les pages de la plateforme. Retournez dans l’application et reconnectez-vous.",
  "error.temporarily_unavailable.title": "Trop de connexions en ce moment",
  "error.temporarily_unavailable.text":
    "La plateforme vérifie beaucoup de mots de passe en ce moment et n’a pas pu vérifier le vôtre à temps. Rien n’a été modifié. Revenez en arrière et reconnectez-vous dans quelques secondes.",
  "error.server_error.title": "Un problème est survenu de notre côté",
  "error.server_error.text": "Le service de connexion n’a pas pu traiter votre demande. Réessayez dans un instant.",
  "error.default.title": "La connexion a échoué",
  "error.default.text": "La plateforme n’a pas pu traiter cette demande de connexion. Retournez dans l’application et réessayez.",
  "error.details": "Détails techniques",
  "error.error": "Erreur",
  "error.description": "Détails",
  "error.home": "Aller à la plateforme",
};
