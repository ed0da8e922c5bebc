/**
 * The hosted sign-in pages' one script: "Sign in with a passkey" on the login page and
 * "Use a passkey" on the second-factor page (components/interaction/passkey-option.tsx). Bundled by
 * scripts/hosted-script.ts into public/hosted/passkey.js; the pages work without it (the password
 * and code forms are plain HTML). It holds no words: the page's language comes in data attributes.
 *
 * 1. Where the browser has WebAuthn, the hidden passkey block is shown.
 * 2. A click asks /interaction/:uid/passkey-options for a challenge (a same-origin POST: the
 *    interaction cookie names the sign-in), runs navigator.credentials.get through
 *    @simplewebauthn/browser, and posts the answer to /interaction/:uid/passkey as a form, so the
 *    server's redirect continues the sign-in exactly as after the password form.
 * 3. On the login page (data-autofill), the browser may also offer passkeys in the username field's
 *    suggestions (conditional mediation); a click on the button cancels that request for its own.
 */
import { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill, startAuthentication } from "@simplewebauthn/browser";

const root = document.querySelector<HTMLElement>("[data-passkey]");

async function signIn(block: HTMLElement, autofill: boolean): Promise<void> {
  const answer = await fetch(block.dataset.options!, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    credentials: "same-origin",
  });
  if (!answer.ok) throw new Error(`passkey options answered ${answer.status}`);
  const { options } = (await answer.json()) as { options: Parameters<typeof startAuthentication>[0]["optionsJSON"] };
  const response = await startAuthentication({ optionsJSON: options, useBrowserAutofill: autofill });
  const form = document.createElement("form");
  form.method = "post";
  form.action = block.dataset.action!;
  form.hidden = true;
  const field = document.createElement("input");
  field.type = "hidden";
  field.name = "response";
  field.value = JSON.stringify(response);
  form.append(field);
  document.body.append(form);
  form.submit();
}

if (root && browserSupportsWebAuthn()) {
  const block = root;
  const button = block.querySelector<HTMLButtonElement>("[data-passkey-start]")!;
  const status = block.querySelector<HTMLElement>("[data-passkey-status]")!;
  block.hidden = false;
  button.addEventListener("click", () => {
    status.textContent = "";
    button.disabled = true;
    signIn(block, false).catch(() => {
      // Cancelled, timed out, or no passkey: say so; the password form is still there.
      status.textContent = block.dataset.failed ?? "";
      button.disabled = false;
    });
  });
  if (block.dataset.autofill !== undefined) {
    void browserSupportsWebAuthnAutofill().then((supported) => {
      // Aborted when the button starts its own request; nothing to say then.
      if (supported) signIn(block, true).catch(() => undefined);
    });
  }
}
