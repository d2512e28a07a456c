/**
 * Meta's side of the embedded signup popup, served in place of facebook.com in a browser test
 * (route https://connect.facebook.net/** to `sdk` and https://www.facebook.com/** to `frame`): the
 * SDK's FB.login opens the signup (a facebook.com frame that reports the chosen ids by
 * postMessage) and answers with the code the sandbox issued for them (`POST /_sandbox/whatsapp/signups`).
 */
export function fakeFacebook(code: string, wabaId: string, phoneNumberId: string): { sdk: string; frame: string } {
  const sdk = `window.FB = {
    init: function () { window.__fbInitialised = true; },
    login: function (cb, opts) {
      if (!window.__fbInitialised || opts.response_type !== 'code') return cb({});
      window.addEventListener('message', function (ev) {
        if (ev.origin === 'https://www.facebook.com') setTimeout(function () { cb({ authResponse: { code: ${JSON.stringify(code)} } }); }, 0);
      });
      var f = document.createElement('iframe');
      f.src = 'https://www.facebook.com/embedded-signup';
      document.body.appendChild(f);
    }
  };
  if (window.fbAsyncInit) window.fbAsyncInit();`;
  const finish = JSON.stringify({
    type: 'WA_EMBEDDED_SIGNUP',
    event: 'FINISH',
    data: { waba_id: wabaId, phone_number_id: phoneNumberId },
  });
  const frame = `<!doctype html><script>parent.postMessage(${JSON.stringify(finish)}, '*');</script>`;
  return { sdk, frame };
}
