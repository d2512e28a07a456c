import { isPersonClick } from './link-previews';

describe('isPersonClick', () => {
  const browser = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';

  it('counts a GET from a browser', () => {
    expect(isPersonClick('GET', browser)).toBe(true);
    expect(isPersonClick('get', 'Mozilla/5.0 (Linux; Android 14) Chrome/120.0 Mobile Safari/537.36')).toBe(true);
  });

  it('does not count previews, bots, HEAD requests or a missing User-Agent', () => {
    for (const ua of [
      'TelegramBot (like TwitterBot)',
      'WhatsApp/2.23.20.0 A',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    ]) {
      expect(isPersonClick('GET', ua)).toBe(false);
    }
    expect(isPersonClick('HEAD', browser)).toBe(false);
    expect(isPersonClick('GET', undefined)).toBe(false);
    expect(isPersonClick('GET', ' ')).toBe(false);
  });
});
