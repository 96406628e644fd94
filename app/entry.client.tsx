import i18next from "i18next";
import { StrictMode, startTransition } from "react";
import { hydrateRoot } from "react-dom/client";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { HydratedRouter } from "react-router/dom";
import { NonceProvider } from "~/ui/shell/nonce";
import { fallbackLanguage, i18nOptions, isLanguage } from "~/i18n";
import { loadTexts } from "~/locales/load";

async function hydrate() {
  // The server already chose the language; the document says which. Only its texts are loaded.
  const lng = isLanguage(document.documentElement.lang) ? document.documentElement.lang : fallbackLanguage;
  await i18next.use(initReactI18next).init({
    ...i18nOptions,
    lng,
    resources: { [lng]: { translation: await loadTexts(lng) } },
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
