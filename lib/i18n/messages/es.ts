import type { Catalog } from "./en";

/** The hosted sign-in pages in Spanish (issue 29); keys and placeholders as in ./en.ts. */
export const es: Catalog = {
  "hosted.skip": "Saltar al contenido",
  "hosted.passwordNote": "Escribe tu contraseña solo en páginas de la plataforma. Las apps nunca la ven.",
  "hosted.language": "Idioma",

  "expired.pageTitle": "Inicio de sesión caducado",
  "expired.title": "Esta solicitud de inicio de sesión ha caducado",
  "expired.text":
    "Las solicitudes de inicio de sesión son válidas por tiempo limitado y solo se pueden usar una vez. Vuelve a la app de la que vienes e inicia sesión de nuevo.",
  "expired.home": "Ir a la plataforma",

  "sandbox.title": "Sandbox",
  "sandbox.text":
    "Este es el entorno de pruebas de la app. Aquí solo pueden iniciar sesión sus usuarios de prueba, y nada de lo que se haga aquí llega a personas reales.",

  "login.pageTitle": "Iniciar sesión",
  "login.title": "Iniciar sesión",
  "login.continueTo": "para continuar a {app}",
  "login.username": "Nombre de usuario",
  "login.password": "Contraseña",
  "login.submit": "Iniciar sesión",
  "login.cancelDevice": "Cancelar este inicio de sesión en el dispositivo",
  "login.cancel": "Cancelar y volver a {app}",
  "login.error.invalid_credentials": "Nombre de usuario o contraseña incorrectos.",
  "login.error.missing_fields": "Escribe tu nombre de usuario y tu contraseña.",
  "login.error.account_disabled":
    "Esta cuenta está desactivada, así que no puede iniciar sesión. Contacta con el soporte de la plataforma si crees que es un error.",
  "login.error.unknown": "No se pudo iniciar sesión. Inténtalo de nuevo.",
  "retry.tooMany": "Demasiados intentos fallidos de inicio de sesión.",
  "retry.later": "Espera unos minutos y vuelve a intentarlo.",
  "retry.now": "Ya puedes volver a intentarlo.",
  "retry.seconds.one": "Vuelve a intentarlo en {count} segundo.",
  "retry.seconds.other": "Vuelve a intentarlo en {count} segundos.",
  "retry.minutes.one": "Vuelve a intentarlo en {count} minuto.",
  "retry.minutes.other": "Vuelve a intentarlo en {count} minutos.",

  "consent.pageTitle": "¿Permitir {app}?",
  "consent.title.first": "¿Permitir que {app} acceda a tu cuenta?",
  "consent.title.more": "{app} ahora pide más",
  "consent.first": "Es la primera vez que esta app pide acceso a tu cuenta.",
  "consent.more.one": "Ya permitiste esta app antes. Ahora también pide un permiso nuevo, marcado como «Nuevo» abajo.",
  "consent.more.other": "Ya permitiste esta app antes. Ahora también pide {count} permisos nuevos, marcados como «Nuevo» abajo.",
  "consent.again": "Ya permitiste esta app antes; te pide que lo confirmes.",
  "consent.builtBy": "La ha creado {owner}, no la plataforma.",
  "consent.notPlatform": "No la ha creado la plataforma.",
  "consent.signedInAs": "Sesión iniciada como {name} (@{handle})",
  "consent.switch": "¿No eres tú? Usa otra cuenta",
  "consent.listTitle": "Si lo permites, la app podrá:",
  "consent.listLabel": "Permisos solicitados",
  "consent.new": "Nuevo",
  "consent.alreadyAllowed": "(ya permitido)",
  "consent.footer":
    "Tu contraseña nunca se comparte. La app solo recibe lo que aparece aquí. Puedes retirarle el acceso en cualquier momento en {link}, en el menú de tu cuenta.",
  "consent.connectedApps": "Apps conectadas",
  "consent.newTab": "(se abre en una pestaña nueva)",
  "consent.deny": "Denegar",
  "consent.allow": "Permitir",

  "scope.openid": "Saber quién eres en la plataforma",
  "scope.profile": "Ver tu nombre visible y tu foto de perfil",
  "scope.offline_access": "Mantener tu sesión iniciada en la app",
  "scope.svc:stats.read": "Leer las estadísticas y puntuaciones de tu cuenta",
  "scope.svc:notifications.read": "Leer tus notificaciones",
  "scope.svc:beetle.read": "Leer tu progreso en el juego Beetle y las cartas que has descubierto",
  "scope.svc:pokes.write": "Dar toques a otras personas en tu nombre",
  "scope.svc:chat.read": "Leer el chat global",
  "scope.svc:chat.write": "Publicar en el chat global en tu nombre",
  "scope.svc:directory.read": "Buscar personas en el directorio de usuarios",

  "logout.pageTitle": "Cerrar sesión",
  "logout.expiredPageTitle": "Cierre de sesión caducado",
  "logout.expiredTitle": "Esta solicitud de cierre de sesión ha caducado",
  "logout.expiredText": "Vuelve a la app de la que vienes y cierra sesión de nuevo.",
  "logout.title": "¿Cerrar sesión en la plataforma?",
  "logout.askedBy": "{app} ha pedido cerrar tu sesión.",
  "logout.text":
    "Cerrar sesión termina tu sesión en la plataforma: todas las apps en las que iniciaste sesión aquí te pedirán que vuelvas a iniciarla.",
  "logout.submit": "Cerrar sesión",
  "logout.onlyApp": "Cerrar sesión solo en {app}",
  "logout.stay": "Seguir con la sesión iniciada en la plataforma",

  "signedOut.pageTitle": "Sesión cerrada",
  "signedOut.title": "Has cerrado sesión",
  "signedOut.text": "Puedes cerrar esta ventana o volver a la app de la que vienes.",

  "device.pageTitle.input": "Inicio de sesión en un dispositivo",
  "device.pageTitle.confirm": "Confirmar el inicio de sesión en el dispositivo",
  "device.pageTitle.success": "Sesión iniciada en tu dispositivo",
  "device.pageTitle.cancelled": "Inicio de sesión en el dispositivo cancelado",
  "device.pageTitle.expired": "Inicio de sesión en el dispositivo caducado",
  "device.expired.title": "Esta página ha caducado",
  "device.expired.text":
    "Las páginas de inicio de sesión en dispositivos son válidas por tiempo limitado. {restart} y escribe el código que muestra tu dispositivo.",
  "device.expired.restart": "Empieza de nuevo",
  "device.input.title": "Inicia sesión en tu dispositivo",
  "device.input.text":
    "Escribe el código que muestra la app en tu televisor, tu línea de comandos o tu chatbot. Después inicias sesión y eliges qué puede hacer la app.",
  "device.code": "Código",
  "device.continue": "Continuar",
  "device.cancel": "Cancelar",
  "device.confirm.title": "¿Es este el código de tu dispositivo?",
  "device.confirm.asksWithOwner": "{app}, una app creada por {owner}, pide iniciar sesión en un dispositivo que muestra este código:",
  "device.confirm.asks": "{app} pide iniciar sesión en un dispositivo que muestra este código:",
  "device.confirm.codeLabel": "Código {code}",
  "device.confirm.warning":
    "Continúa solo si tú mismo iniciaste este proceso y el código coincide. Si alguien te envió este código o enlace, cancela: continuar le daría acceso a tu cuenta.",
  "device.success.title": "Has iniciado sesión en tu dispositivo",
  "device.success.text": "{app} ya puede continuar en tu dispositivo. Puedes cerrar esta página.",
  "device.success.theApp": "La app",
  "device.success.revoke": "Puedes retirarle el acceso a la app en cualquier momento en {link}.",
  "device.cancelled.title": "Inicio de sesión en el dispositivo cancelado",
  "device.cancelled.text":
    "No se ha compartido nada con el dispositivo. Puedes cerrar esta página; para intentarlo de nuevo, vuelve a iniciar sesión en el dispositivo.",
  "device.error.missing": "Escribe el código que muestra tu dispositivo.",
  "device.error.not_found": "Ese código no es válido. Comprueba el código de tu dispositivo y vuelve a intentarlo.",
  "device.error.expired": "Ese código ha caducado. Vuelve a iniciar sesión en tu dispositivo para obtener uno nuevo.",
  "device.error.used": "Ese código ya se usó. Vuelve a iniciar sesión en tu dispositivo para obtener uno nuevo.",
  "device.error.app_unavailable":
    "La app que mostró este código no puede iniciar tu sesión: no está aprobada o fue suspendida. No se ha compartido nada con ella.",
  "device.error.failed":
    "Este inicio de sesión no pudo continuar (puede que la página estuviera abierta demasiado tiempo). Escribe el código de nuevo.",

  "error.invalid_client.title": "Esta app no puede iniciar tu sesión",
  "error.invalid_client.text":
    "La app que te envió aquí es desconocida para la plataforma, aún no está aprobada o está suspendida. No se ha compartido nada con ella.",
  "error.invalid_redirect_uri.title": "Este enlace de inicio de sesión no es válido",
  "error.invalid_redirect_uri.text":
    "La app pidió devolverte a una dirección que no ha registrado (redirect_uri). Por tu seguridad nos detuvimos aquí y no te enviamos a ninguna parte.",
  "error.invalid_request.title": "Esta solicitud de inicio de sesión no es válida",
  "error.invalid_request.text":
    "La app que te envió aquí hizo una solicitud que la plataforma no puede aceptar. Vuelve a la app e inténtalo de nuevo; si sigue ocurriendo, contacta con quien desarrolla la app.",
  "error.session_not_found.title": "Esta solicitud de inicio de sesión ha caducado",
  "error.session_not_found.text":
    "Las solicitudes de inicio de sesión solo son válidas por tiempo limitado y cada una se puede usar una vez. Vuelve a la app e inicia sesión de nuevo.",
  "error.forbidden.title": "Solicitud rechazada",
  "error.forbidden.text":
    "Este formulario se envió desde un sitio que no es una página de la plataforma. Vuelve a la app e inicia sesión de nuevo.",
  "error.temporarily_unavailable.title": "Demasiados inicios de sesión en este momento",
  "error.temporarily_unavailable.text":
    "La plataforma está comprobando muchas contraseñas en este momento y no pudo comprobar la tuya a tiempo. No se ha cambiado nada. Vuelve e inicia sesión de nuevo en unos segundos.",
  "error.server_error.title": "Algo ha fallado por nuestra parte",
  "error.server_error.text": "El servicio de inicio de sesión no pudo completar tu solicitud. Inténtalo de nuevo en un momento.",
  "error.default.title": "No se pudo iniciar sesión",
  "error.default.text": "La plataforma no pudo completar esta solicitud de inicio de sesión. Vuelve a la app e inténtalo de nuevo.",
  "error.details": "Detalles técnicos",
  "error.error": "Error",
  "error.description": "Detalles",
  "error.home": "Ir a la plataforma",
};
