import i18next from "i18next";
import { StrictMode, startTransition } from "react";
import { hydrateRoot } from "react-dom/client";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { HydratedRouter } from "react-router/dom";
import { NonceProvider } from "~/components/nonce";
import { fallbackLanguage, i18nOptions } from "~/i18n";

async function hydrate() {
  await i18next.use(initReactI18next).init({
    ...i18nOptions,
    // The server already chose the language; the document says which.
    lng: document.documentElement.lang || fallbackLanguage,
  });
  // Browsers hide the nonce attribute from the DOM but keep the property; reading it back makes
  // the client render the same nonce attributes the server did.
  const nonce = document.querySelector<HTMLScriptElement>("script[nonce]")?.nonce ?? "";
  startTransition(() => {
    hydrateRoot(
      document,
      <NonceProvider value={nonce}>
        <I18nextProvider i18n={i18next}>
          <StrictMode>
            <HydratedRouter />
          </StrictMode>
        </I18nextProvider>
      </NonceProvider>,
    );
  });
}

void hydrate();
