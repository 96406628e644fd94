/**
 * A stand-in for Stripe.js (https://js.stripe.com/v3/), for tests only. The fake Stripe server
 * (./stripe/index.ts) serves it at `${fake.url}/v3/` as application/javascript; point the app's
 * STRIPE_JS_URL there and load it with a plain <script src> (or @stripe/stripe-js's loadStripe,
 * which uses an already present window.Stripe).
 *
 * It is plain ES2019 without a build step and defines `window.Stripe(publishableKey, options)` with
 * the subset the app uses. It talks to the fake API exactly as Stripe.js talks to api.stripe.com:
 * form-encoded requests with the publishable key as a Bearer token, so the fake's checks apply.
 *
 * - `stripe.elements({ clientSecret? , mode?, amount?, currency?, appearance?, locale? })`: the client
 *     secret of a PaymentIntent (pi_…_secret_…) or of a SetupIntent (seti_…_secret_…, e.g. a
 *     subscription's pending_setup_intent);
 *     `.create("payment" | "expressCheckout", options)`, `.getElement(type)`, `.update(options)`,
 *     `.fetchUpdates()`, `.submit()` (→ `{}` or `{ error: { type: "validation_error", code, message } }`).
 * - Elements: `mount(selectorOrNode)`, `unmount()`, `destroy()`, `on/once/off(event, handler)`,
 *     `update()`, `focus()`, `blur()`, `clear()`. "ready" fires after mount; "change" fires on input
 *     with `{ elementType, empty, complete, value: { type: "card" } }`.
 *   The payment element renders, in the mount node (no iframe), `<label for="fake-stripe-card">Card
 *   number</label><input id="fake-stripe-card" autocomplete="cc-number">` (no `name`, so an
 *   enclosing <form> never posts the number to the app). Test cards: 4242 4242 4242 4242 succeeds,
 *   4000 0000 0000 0002 declines, 4000 0000 0000 9995 insufficient funds.
 *   The express checkout element renders a "Pay with wallet" button. A click fires the "click"
 *   handlers (with `resolve()`; like the real element it goes on only once one is resolved, if any
 *   are registered), then the "confirm" handlers with `{ expressPaymentType: "google_pay",
 *   billingDetails, paymentFailed() }`; the app then calls `stripe.confirmPayment`, which pays with
 *   `payment_method=pm_card_visa`.
 * - `stripe.confirmPayment({ elements, clientSecret?, confirmParams: { return_url? , ... }, redirect })`
 *     POSTs /v1/payment_intents/:id/confirm with `client_secret` and `payment_method_data[card][number]`.
 *     Like Stripe.js it throws (rejects with an IntegrationError) without `return_url` unless
 *     `redirect: "if_required"`, and in the deferred-intent flow (elements without clientSecret)
 *     when `elements.submit()` was not called first. Even with "if_required" the API refuses the
 *     confirmation without `return_url` when the intent's automatic payment methods allow
 *     redirects (the default since 2023-08-16): it resolves `{ error: { type:
 *     "invalid_request_error", param: "return_url", message: "… you must provide a `return_url` …" } }`.
 *     A relative `return_url` is sent resolved against the page's address. A success with `redirect: "always"` (the
 *     default) navigates to `return_url?payment_intent=…&payment_intent_client_secret=…&redirect_status=succeeded`
 *     and never resolves; with "if_required" it resolves `{ paymentIntent }`. A decline resolves
 *     `{ error: { type: "card_error", code, decline_code, message, payment_intent } }` and does not navigate.
 * - `stripe.confirmSetup({ elements, clientSecret?, confirmParams: { return_url? , ... }, redirect })`
 *     is the same for a SetupIntent: it POSTs /v1/setup_intents/:id/confirm, with the same
 *     IntegrationErrors (worded for stripe.confirmSetup()); a success navigates to
 *     `return_url?setup_intent=…&setup_intent_client_secret=…&redirect_status=succeeded` or, with
 *     "if_required", resolves `{ setupIntent }`; a refused card resolves `{ error: { type:
 *     "card_error", …, setup_intent } }`. 4000 0000 0000 0341 is saved but declines every charge.
 *     Like Stripe.js, confirmPayment refuses a SetupIntent's secret and confirmSetup a
 *     PaymentIntent's (IntegrationError).
 * - `stripe.retrievePaymentIntent(clientSecret)` → `{ paymentIntent }`, `stripe.retrieveSetupIntent(clientSecret)`
 *   → `{ setupIntent }`, or `{ error }`.
 * - `stripe.confirmCardPayment(clientSecret, { payment_method: "pm_…" | { card: element } })` and
 *   `stripe.confirmCardSetup(clientSecret, …)` (→ `{ setupIntent }`),
 *   plus stubs `createToken`, `createPaymentMethod` (resolve an error) so wrappers that sniff for
 *   them (react-stripe-js) accept the object.
 *
 * The publishable key's requests go to the fake's origin, so the app's CSP connect-src must allow it.
 */
export function stripeJsSource(apiOrigin: string): string {
  return SOURCE.replace("__FAKE_STRIPE_API__", JSON.stringify(apiOrigin.replace(/\/$/, "")));
}

const SOURCE = String.raw`/* Fake Stripe.js for tests: not the real thing. */
(function () {
  "use strict";
  var API = __FAKE_STRIPE_API__;
  var cardInputCount = 0;

  function IntegrationError(message) {
    var error = new Error(message);
    error.name = "IntegrationError";
    return error;
  }
  function digitsOf(value) {
    return String(value == null ? "" : value).replace(/\D/g, "");
  }
  function luhnValid(number) {
    var sum = 0;
    var double = false;
    for (var i = number.length - 1; i >= 0; i--) {
      var d = number.charCodeAt(i) - 48;
      if (double) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
      double = !double;
    }
    return number.length > 0 && sum % 10 === 0;
  }
  function cardProblem(number) {
    if (number.length < 15) {
      return { type: "validation_error", code: "incomplete_number", message: "Your card number is incomplete." };
    }
    if (!luhnValid(number)) {
      return { type: "validation_error", code: "invalid_number", message: "Your card number is invalid." };
    }
    return null;
  }
  function encodeForm(value, prefix, out) {
    if (value === undefined) return out;
    if (value !== null && typeof value === "object") {
      var keys = Object.keys(value);
      for (var i = 0; i < keys.length; i++) {
        var key = prefix ? prefix + "[" + keys[i] + "]" : keys[i];
        encodeForm(value[keys[i]], key, out);
      }
      return out;
    }
    out.push(encodeURIComponent(prefix).replace(/%5B/g, "[").replace(/%5D/g, "]") + "=" + encodeURIComponent(value === null ? "" : String(value)));
    return out;
  }
  function intentIdFromSecret(clientSecret) {
    var at = typeof clientSecret === "string" ? clientSecret.indexOf("_secret_") : -1;
    return at > 0 ? clientSecret.slice(0, at) : null;
  }
  // "payment" for a PaymentIntent's client secret (pi_…), "setup" for a SetupIntent's (seti_…).
  function intentKindOf(clientSecret) {
    var id = intentIdFromSecret(clientSecret);
    if (!id) return null;
    return id.indexOf("seti_") === 0 ? "setup" : id.indexOf("pi_") === 0 ? "payment" : null;
  }
  var KINDS = {
    payment: { method: "confirmPayment", path: "/v1/payment_intents/", param: "payment_intent", result: "paymentIntent", name: "PaymentIntent" },
    setup: { method: "confirmSetup", path: "/v1/setup_intents/", param: "setup_intent", result: "setupIntent", name: "SetupIntent" },
  };
  function assign(target) {
    for (var i = 1; i < arguments.length; i++) {
      var source = arguments[i] || {};
      var keys = Object.keys(source);
      for (var k = 0; k < keys.length; k++) target[keys[k]] = source[keys[k]];
    }
    return target;
  }

  function Emitter() {
    this._handlers = {};
  }
  Emitter.prototype.on = function (event, handler) {
    (this._handlers[event] = this._handlers[event] || []).push(handler);
    return this;
  };
  Emitter.prototype.once = function (event, handler) {
    var self = this;
    var wrapper = function (payload) {
      self.off(event, wrapper);
      handler(payload);
    };
    return this.on(event, wrapper);
  };
  Emitter.prototype.off = function (event, handler) {
    var list = this._handlers[event] || [];
    this._handlers[event] = handler ? list.filter(function (h) { return h !== handler; }) : [];
    return this;
  };
  Emitter.prototype._emit = function (event, payload) {
    var list = (this._handlers[event] || []).slice();
    for (var i = 0; i < list.length; i++) list[i](payload);
    return list.length;
  };

  function Element(group, type, options) {
    Emitter.call(this);
    this._group = group;
    this._type = type;
    this._options = options || {};
    this._container = null;
    this._input = null;
    this._error = null;
    this._destroyed = false;
  }
  Element.prototype = Object.create(Emitter.prototype);
  Element.prototype.constructor = Element;
  Element.prototype._build = function () {
    var self = this;
    var container = document.createElement("div");
    container.className = "FakeStripeElement FakeStripeElement--" + this._type;
    if (this._type === "payment") {
      cardInputCount += 1;
      var id = cardInputCount === 1 ? "fake-stripe-card" : "fake-stripe-card-" + cardInputCount;
      var label = document.createElement("label");
      label.htmlFor = id;
      label.textContent = "Card number";
      var input = document.createElement("input");
      input.id = id;
      input.type = "text";
      input.autocomplete = "cc-number";
      input.inputMode = "numeric";
      input.spellcheck = false;
      var error = document.createElement("p");
      error.id = id + "-error";
      error.className = "FakeStripeElement-error";
      error.setAttribute("role", "alert");
      input.addEventListener("input", function () {
        self._showError(null);
        var number = digitsOf(input.value);
        self._emit("change", {
          elementType: "payment",
          empty: number.length === 0,
          complete: cardProblem(number) === null,
          collapsed: false,
          value: { type: "card" },
        });
      });
      input.addEventListener("focus", function () { self._emit("focus", { elementType: "payment" }); });
      input.addEventListener("blur", function () { self._emit("blur", { elementType: "payment" }); });
      container.appendChild(label);
      container.appendChild(input);
      container.appendChild(error);
      this._input = input;
      this._error = error;
    } else {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = "Pay with wallet";
      button.addEventListener("click", function () { self._walletClicked(); });
      container.appendChild(button);
    }
    return container;
  };
  Element.prototype._showError = function (message) {
    if (!this._error || !this._input) return;
    this._error.textContent = message || "";
    if (message) this._input.setAttribute("aria-describedby", this._error.id);
    else this._input.removeAttribute("aria-describedby");
  };
  Element.prototype._walletClicked = function () {
    var self = this;
    var group = this._group;
    var proceed = function () {
      group._wallet = true;
      self._emit("confirm", {
        elementType: "expressCheckout",
        expressPaymentType: "google_pay",
        billingDetails: { name: "Wallet Payer", email: "wallet@example.com", phone: null, address: null },
        paymentFailed: function (details) {
          group._wallet = false;
          self._lastFailure = details || {};
        },
      });
    };
    if ((this._handlers.click || []).length === 0) return proceed();
    var settled = false;
    this._emit("click", {
      elementType: "expressCheckout",
      expressPaymentType: "google_pay",
      resolve: function () {
        if (settled) return;
        settled = true;
        setTimeout(proceed, 0);
      },
      reject: function () { settled = true; },
    });
  };
  Element.prototype.mount = function (target) {
    if (this._destroyed) throw IntegrationError("This Element has already been destroyed. Please create a new one.");
    var node = typeof target === "string" ? document.querySelector(target) : target;
    if (!node || typeof node.appendChild !== "function") {
      throw IntegrationError("The selector you specified (" + String(target) + ") applies to no DOM elements that are currently on the page.\nMake sure the element exists on the page before calling mount().");
    }
    if (!this._container) this._container = this._build();
    node.appendChild(this._container);
    var self = this;
    setTimeout(function () {
      var payload = { elementType: self._type };
      if (self._type === "expressCheckout") {
        payload.availablePaymentMethods = { applePay: false, googlePay: true, link: false, paypal: false, amazonPay: false, klarna: false };
      }
      self._emit("ready", payload);
    }, 0);
  };
  Element.prototype.unmount = function () {
    if (this._container && this._container.parentNode) this._container.parentNode.removeChild(this._container);
  };
  Element.prototype.destroy = function () {
    this.unmount();
    this._destroyed = true;
    var list = this._group._elements;
    var at = list.indexOf(this);
    if (at >= 0) list.splice(at, 1);
  };
  Element.prototype.update = function (options) {
    assign(this._options, options);
  };
  Element.prototype.focus = function () {
    if (this._input) this._input.focus();
  };
  Element.prototype.blur = function () {
    if (this._input) this._input.blur();
  };
  Element.prototype.clear = function () {
    if (this._input) this._input.value = "";
  };
  Element.prototype.collapse = function () {};
  Element.prototype._cardNumber = function () {
    return this._input ? digitsOf(this._input.value) : "";
  };

  function Elements(stripe, options) {
    this._stripe = stripe;
    this._options = assign({}, options);
    this._clientSecret = this._options.clientSecret || null;
    this._elements = [];
    this._submitted = false;
    this._wallet = false;
  }
  Elements.prototype.create = function (type, options) {
    if (type !== "payment" && type !== "expressCheckout") {
      throw IntegrationError("The fake Stripe.js supports only the payment and expressCheckout Elements, not " + type + ".");
    }
    if (this.getElement(type)) throw IntegrationError("Can only create one Element of type " + type + ".");
    var element = new Element(this, type, options);
    this._elements.push(element);
    return element;
  };
  Elements.prototype.getElement = function (type) {
    for (var i = 0; i < this._elements.length; i++) if (this._elements[i]._type === type) return this._elements[i];
    return null;
  };
  Elements.prototype.update = function (options) {
    assign(this._options, options);
  };
  Elements.prototype.fetchUpdates = function () {
    return Promise.resolve({});
  };
  Elements.prototype._validate = function () {
    if (this._wallet) return null;
    var element = this.getElement("payment");
    if (!element) return null;
    var problem = cardProblem(element._cardNumber());
    element._showError(problem ? problem.message : null);
    return problem;
  };
  Elements.prototype.submit = function () {
    if (!this.getElement("payment") && !this.getElement("expressCheckout")) {
      return Promise.reject(IntegrationError("elements.submit(): no Payment Element or Express Checkout Element was created."));
    }
    var problem = this._validate();
    if (problem) return Promise.resolve({ error: problem });
    this._submitted = true;
    return Promise.resolve({});
  };

  function FakeStripe(publishableKey, options) {
    if (!(this instanceof FakeStripe)) return new FakeStripe(publishableKey, options);
    if (typeof publishableKey !== "string" || publishableKey === "") {
      throw IntegrationError("Please call Stripe() with your publishable key. You used an empty string.");
    }
    if (publishableKey.indexOf("sk_") === 0) {
      throw IntegrationError("You should not use your secret key with Stripe.js.\nPlease pass a publishable key instead.");
    }
    this._key = publishableKey;
    this._options = options || {};
  }
  FakeStripe.prototype._registerWrapper = function () {};
  FakeStripe.prototype._request = function (method, path, params) {
    var body = encodeForm(params || {}, "", []).join("&");
    var headers = { Authorization: "Bearer " + this._key };
    if (this._options.apiVersion) headers["Stripe-Version"] = this._options.apiVersion;
    var init = { method: method, headers: headers };
    var url = API + path;
    if (method === "GET") {
      if (body) url += "?" + body;
    } else {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      init.body = body;
    }
    return fetch(url, init).then(
      function (response) {
        return response.json().then(function (json) {
          return { status: response.status, body: json };
        });
      },
      function (err) {
        return { status: 0, body: { error: { type: "api_connection_error", message: "Could not reach the fake Stripe API: " + String(err && err.message) } } };
      },
    );
  };
  FakeStripe.prototype.elements = function (options) {
    options = options || {};
    if (options.clientSecret !== undefined && !intentIdFromSecret(options.clientSecret)) {
      throw IntegrationError("Invalid value for elements(): clientSecret should be a client secret of the form ${"$"}{id}_secret_${"$"}{secret}. You specified: " + String(options.clientSecret) + ".");
    }
    return new Elements(this, options);
  };
  FakeStripe.prototype._confirm = function (clientSecret, params, kind) {
    var id = intentIdFromSecret(clientSecret);
    if (!id) return Promise.reject(IntegrationError("Invalid value for clientSecret: " + String(clientSecret) + "."));
    var path = KINDS[kind || "payment"].path;
    return this._request("POST", path + encodeURIComponent(id) + "/confirm", assign({}, params, { client_secret: clientSecret }));
  };
  // The intent secret's kind must match the method: confirmPayment takes a PaymentIntent's, confirmSetup a SetupIntent's.
  function wrongKind(method, kind, clientSecret) {
    var actual = intentKindOf(clientSecret);
    if (!actual || actual === kind) return null;
    return IntegrationError("Invalid value for stripe." + method + " intent secret: value should be a " + KINDS[kind].name + " client secret. You specified: a " + KINDS[actual].name + " client secret.");
  }
  FakeStripe.prototype.confirmPayment = function (options) {
    return this._confirmWithElements("payment", options);
  };
  FakeStripe.prototype.confirmSetup = function (options) {
    return this._confirmWithElements("setup", options);
  };
  FakeStripe.prototype._confirmWithElements = function (kind, options) {
    var spec = KINDS[kind];
    var name = "stripe." + spec.method + "()";
    options = options || {};
    var group = options.elements || null;
    var confirmParams = assign({}, options.confirmParams);
    if (confirmParams.return_url) confirmParams.return_url = new URL(confirmParams.return_url, window.location.href).toString();
    var redirect = options.redirect || "always";
    if (!group && !options.clientSecret) {
      return Promise.reject(IntegrationError(name + ": expected either elements or clientSecret, but got neither."));
    }
    var clientSecret = options.clientSecret || (group && group._clientSecret);
    if (!clientSecret) {
      return Promise.reject(IntegrationError(name + ": the clientSecret argument is required when the Elements group was created without one."));
    }
    var mismatch = wrongKind(spec.method, kind, clientSecret);
    if (mismatch) return Promise.reject(mismatch);
    if (group && !group._clientSecret && !group._submitted) {
      return Promise.reject(IntegrationError("elements.submit() must be called before stripe." + spec.method + "(). Call elements.submit() as soon as your customer presses pay, prior to any asynchronous work."));
    }
    if (redirect !== "if_required" && !confirmParams.return_url) {
      return Promise.reject(IntegrationError(name + ": the confirmParams.return_url argument is required unless passing redirect: 'if_required'"));
    }
    if (group && group._wallet) {
      group._wallet = false;
      confirmParams.payment_method = "pm_card_visa";
    } else if (group && !confirmParams.payment_method) {
      var problem = group._validate();
      if (problem) return Promise.resolve({ error: problem });
      var element = group.getElement("payment");
      var pmData = assign({}, confirmParams.payment_method_data, { type: "card" });
      pmData.card = { number: element ? element._cardNumber() : "" };
      confirmParams.payment_method_data = pmData;
    }
    group && (group._submitted = false);
    return this._confirm(clientSecret, confirmParams, kind).then(function (result) {
      if (result.body && result.body.error) return { error: result.body.error };
      var intent = result.body;
      var done = intent.status === "succeeded" || intent.status === "processing" || intent.status === "requires_capture";
      if (redirect === "always" && confirmParams.return_url) {
        var target = new URL(confirmParams.return_url, window.location.href);
        target.searchParams.set(spec.param, intent.id);
        target.searchParams.set(spec.param + "_client_secret", clientSecret);
        target.searchParams.set("redirect_status", done ? "succeeded" : "failed");
        window.location.assign(target.toString());
        return new Promise(function () {});
      }
      var out = {};
      out[spec.result] = intent;
      return out;
    });
  };
  FakeStripe.prototype.confirmCardPayment = function (clientSecret, data) {
    return this._confirmCard("payment", "confirmCardPayment", clientSecret, data);
  };
  FakeStripe.prototype.confirmCardSetup = function (clientSecret, data) {
    return this._confirmCard("setup", "confirmCardSetup", clientSecret, data);
  };
  FakeStripe.prototype._confirmCard = function (kind, method, clientSecret, data) {
    var mismatch = wrongKind(method, kind, clientSecret);
    if (mismatch) return Promise.reject(mismatch);
    data = data || {};
    var params = assign({}, data);
    var pm = data.payment_method;
    if (pm && typeof pm === "object" && pm.card instanceof Element) {
      var number = pm.card._cardNumber();
      var problem = cardProblem(number);
      if (problem) return Promise.resolve({ error: problem });
      params.payment_method_data = assign({}, pm, { type: "card", card: { number: number } });
      delete params.payment_method;
    }
    return this._confirm(clientSecret, params, kind).then(function (result) {
      if (result.body && result.body.error) return { error: result.body.error };
      var out = {};
      out[KINDS[kind].result] = result.body;
      return out;
    });
  };
  FakeStripe.prototype._retrieve = function (kind, method, clientSecret) {
    var id = intentIdFromSecret(clientSecret);
    if (!id) return Promise.reject(IntegrationError("Invalid value for " + method + ": " + String(clientSecret) + "."));
    var mismatch = wrongKind(method, kind, clientSecret);
    if (mismatch) return Promise.reject(mismatch);
    return this._request("GET", KINDS[kind].path + encodeURIComponent(id), { client_secret: clientSecret }).then(function (result) {
      if (result.body && result.body.error) return { error: result.body.error };
      var out = {};
      out[KINDS[kind].result] = result.body;
      return out;
    });
  };
  FakeStripe.prototype.retrievePaymentIntent = function (clientSecret) {
    return this._retrieve("payment", "retrievePaymentIntent", clientSecret);
  };
  FakeStripe.prototype.retrieveSetupIntent = function (clientSecret) {
    return this._retrieve("setup", "retrieveSetupIntent", clientSecret);
  };
  function unsupported(name) {
    return function () {
      return Promise.resolve({ error: { type: "invalid_request_error", message: "stripe." + name + "() is not supported by the fake Stripe.js." } });
    };
  }
  FakeStripe.prototype.createToken = unsupported("createToken");
  FakeStripe.prototype.createPaymentMethod = unsupported("createPaymentMethod");
  FakeStripe.prototype.handleNextAction = unsupported("handleNextAction");

  window.Stripe = FakeStripe;
  window.Stripe.version = 3;
  window.Stripe.fake = true;
})();
`;
