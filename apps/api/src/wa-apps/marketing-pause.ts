import { AppEntity } from './app.entity';

/**
 * Why the channel's account signals pause the app's marketing sends right now, or null when they
 * do not: a RED (low) quality rating, or a restriction of business-initiated messaging that has
 * not ended. Both lift on their own when the channel reports the change (or the restriction's end
 * passes); other categories keep sending.
 */
export function marketingPauseOf(app: AppEntity, now: Date): string | null {
  if (app.phoneQuality === 'RED') {
    return (
      'The quality rating of the app’s WhatsApp number is RED (low), so marketing messages are paused. ' +
      'The pause lifts automatically once the channel reports a better rating; utility, authentication ' +
      'and service messages still send.'
    );
  }
  if (app.restricted && (!app.restrictedUntil || app.restrictedUntil.getTime() > now.getTime())) {
    const until = app.restrictedUntil
      ? `until ${app.restrictedUntil.toISOString()}`
      : 'until the channel lifts the restriction';
    return (
      `The channel restricts business-initiated messaging of the app’s WhatsApp account ${until}, so ` +
      'marketing messages are paused. The pause lifts automatically; utility, authentication and ' +
      'service messages still send.'
    );
  }
  return null;
}
