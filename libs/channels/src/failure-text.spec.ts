import { redactSecrets } from './failure-text';

describe('failure texts carry no credentials', () => {
  it.each([
    [
      'request to https://api.telegram.org/bot123456:AAE-secret_Token/sendMessage failed, reason: connect ECONNREFUSED',
      '123456:AAE-secret_Token',
    ],
    ['sendMessage: fetch failed (bot987654321:ZZtop-secret)', 'ZZtop-secret'],
    ['GET https://graph.facebook.com/v21.0/me?fields=id&access_token=EAAG-long-token&x=1 failed', 'EAAG-long-token'],
    ['upload refused: {"Authorization":"max-bot-token-42"}', 'max-bot-token-42'],
    ['headers: Authorization: Bearer abc.def-ghi_jkl', 'abc.def-ghi_jkl'],
    ['the upload answered 401 (Bearer eyJhbGciOi.payload.sig)', 'eyJhbGciOi.payload.sig'],
  ])('%s', (text, secret) => {
    const out = redactSecrets(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('<redacted>');
  });

  it('takes out a secret the caller knows wherever it appears, and leaves ordinary text alone', () => {
    expect(redactSecrets('messages: token tok-123456 refused', ['tok-123456'])).toBe(
      'messages: token <redacted> refused',
    );
    const plain = 'sendMessage: Bad Request: chat not found';
    expect(redactSecrets(plain)).toBe(plain);
    expect(redactSecrets('the media URL answered 404')).toBe('the media URL answered 404');
  });
});
