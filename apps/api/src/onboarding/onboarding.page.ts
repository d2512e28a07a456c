export interface OnboardingPageInput {
  mode: 'sandbox' | 'cloud';
  appName: string;
  /** Where the page posts (relative URLs, carrying the link token). */
  sandboxAction: string;
  signupAction: string;
  nonce: string;
  facebookAppId?: string;
  signupConfigId?: string;
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** JSON safe inside a <script> element. */
const scriptJson = (v: unknown): string => JSON.stringify(v).replace(/</g, '\\u003c');

const STYLE = `
  body { font-family: system-ui, -apple-system, Segoe UI, Roboto, sans-serif; background: #f4f6f8; margin: 0; }
  main { max-width: 420px; margin: 48px auto; background: #fff; border-radius: 12px; padding: 28px 32px;
         box-shadow: 0 2px 12px rgba(0,0,0,.08); }
  h1 { font-size: 20px; margin: 0 0 4px; } p { color: #444; line-height: 1.45; }
  label { display: block; font-weight: 600; margin: 16px 0 6px; }
  input { width: 100%; box-sizing: border-box; padding: 10px 12px; font-size: 16px; border: 1px solid #c8ced3; border-radius: 8px; }
  button { margin-top: 16px; width: 100%; padding: 11px; font-size: 16px; border: 0; border-radius: 8px;
           background: #128c7e; color: #fff; cursor: pointer; } button[disabled] { opacity: .6; cursor: default; }
  .error { color: #b00020; min-height: 1.2em; margin-top: 10px; } .ok { color: #0a7a3b; font-weight: 600; font-size: 18px; }
  .muted { color: #777; font-size: 13px; }`;

/** The onboarding page behind embed_link_url: plain HTML and one small script, no framework. */
export function renderOnboardingPage(p: OnboardingPageInput): string {
  const sandboxForm = `
    <p>Sandbox mode: connect a test WhatsApp number. No real messages leave the sandbox.</p>
    <form id="connect-form" novalidate>
      <label for="phone">WhatsApp number</label>
      <input id="phone" name="phone" type="tel" inputmode="numeric" autocomplete="tel"
             placeholder="79990001122" required pattern="[1-9][0-9]{7,14}">
      <p class="muted">International format, digits only, no plus sign (8 to 15 digits).</p>
      <button id="connect" type="submit">Connect</button>
      <p id="error" class="error" role="alert"></p>
    </form>
    <p id="result" class="ok" role="status" hidden></p>`;
  const cloudForm = `
    <p>Connect your WhatsApp Business number through Meta's embedded signup.</p>
    <form id="connect-form" novalidate>
      <button id="connect" type="submit">Continue with Facebook</button>
      <p id="error" class="error" role="alert"></p>
    </form>
    <p id="result" class="ok" role="status" hidden></p>
    <script nonce="${p.nonce}" async defer crossorigin="anonymous" src="https://connect.facebook.net/en_US/sdk.js"></script>`;
  const config = {
    mode: p.mode,
    sandboxAction: p.sandboxAction,
    signupAction: p.signupAction,
    facebookAppId: p.facebookAppId ?? null,
    signupConfigId: p.signupConfigId ?? null,
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Connect WhatsApp – ${escapeHtml(p.appName)}</title>
<style nonce="${p.nonce}">${STYLE}</style>
</head>
<body>
<main>
  <h1>Connect WhatsApp</h1>
  <p class="muted">Application: <strong id="app-name">${escapeHtml(p.appName)}</strong></p>
  ${p.mode === 'sandbox' ? sandboxForm : cloudForm}
</main>
<script nonce="${p.nonce}">
(function () {
  var cfg = ${scriptJson(config)};
  var form = document.getElementById('connect-form');
  if (!form) return;
  var phone = document.getElementById('phone');
  var button = document.getElementById('connect');
  var error = document.getElementById('error');
  var result = document.getElementById('result');

  function problemText(body, status) {
    if (body && body.errors && body.errors.length) return body.errors.map(function (e) { return e.message; }).join('; ');
    if (body && body.detail) return body.detail;
    return 'Could not connect (HTTP ' + status + ').';
  }
  function post(url, payload) {
    button.disabled = true;
    error.textContent = '';
    return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload) })
      .then(function (res) {
        return res.json().catch(function () { return null; }).then(function (body) {
          if (!res.ok) throw new Error(problemText(body, res.status));
          form.hidden = true;
          result.hidden = false;
          result.textContent = 'Connected: +' + body.phone;
        });
      })
      .catch(function (err) { error.textContent = err.message; button.disabled = false; });
  }
  function validPhone() {
    var v = phone.value.replace(/[\\s()+-]/g, '');
    if (!/^[1-9][0-9]{7,14}$/.test(v)) { error.textContent = 'Enter 8 to 15 digits in international format, without a plus sign.'; return null; }
    return v;
  }

  if (cfg.mode === 'sandbox') {
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var v = validPhone();
      if (v) post(cfg.sandboxAction, { phone: v });
    });
    return;
  }

  // Cloud mode: Meta's embedded signup reports the business account and number ids by postMessage.
  var signup = null;
  window.addEventListener('message', function (ev) {
    if (!/^https:\\/\\/([a-z0-9-]+\\.)*facebook\\.com$/.test(ev.origin)) return;
    try {
      var data = typeof ev.data === 'string' ? JSON.parse(ev.data) : ev.data;
      if (data && data.type === 'WA_EMBEDDED_SIGNUP' && data.event === 'FINISH') signup = data.data;
    } catch (e) { /* not a signup message */ }
  });
  window.fbAsyncInit = function () {
    FB.init({ appId: cfg.facebookAppId, autoLogAppEvents: true, xfbml: false, version: 'v21.0' });
  };
  // The SDK loads async: when it came first it did not see fbAsyncInit.
  if (typeof FB !== 'undefined') window.fbAsyncInit();
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    if (typeof FB === 'undefined') { error.textContent = 'The signup could not be loaded; check your connection and retry.'; return; }
    FB.login(function (response) {
      var code = response.authResponse && response.authResponse.code;
      if (!code || !signup) { error.textContent = 'The signup was not completed.'; return; }
      // The server exchanges the code and checks the ids against what it grants.
      post(cfg.signupAction, { code: code, waba_id: signup.waba_id, phone_number_id: signup.phone_number_id });
    }, {
      config_id: cfg.signupConfigId,
      response_type: 'code',
      override_default_response_type: true,
      extras: { setup: {}, sessionInfoVersion: '3' }
    });
  });
})();
</script>
</body>
</html>`;
}

const LINK_PAGES = {
  invalid: ['Link not valid', 'This link is not valid', 'Ask for a new onboarding link.'],
  expired: ['Link expired', 'This link has expired', 'Ask the app owner for a new onboarding link.'],
  used: ['Link already used', 'This link has already been used', 'A number is already connected through it.'],
} as const;

/** A page for a link that does not open anything (wrong token, unknown app, expired, spent). */
export function renderInvalidLinkPage(reason: keyof typeof LINK_PAGES): string {
  const [title, heading, text] = LINK_PAGES[reason];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><main><h1>${heading}</h1><p>${text}</p></main></body></html>`;
}
