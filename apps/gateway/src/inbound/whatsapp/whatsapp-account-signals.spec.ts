import { normalizeWhatsAppWebhook } from './whatsapp-webhook.normalizer';

const now = new Date('2025-11-21T00:00:00Z');

function webhook(field: string, value: Record<string, unknown>, time = 1763683200) {
  return { object: 'whatsapp_business_account', entry: [{ id: '200', time, changes: [{ field, value }] }] };
}

const signalOf = (field: string, value: Record<string, unknown>) => {
  const out = normalizeWhatsAppWebhook(webhook(field, value), now);
  expect(out.events).toEqual([]);
  return out.signals;
};

describe('account callbacks as app signals', () => {
  it('FLAGGED is a RED quality, with the number’s current limit', () => {
    const [s] = signalOf('phone_number_quality_update', {
      display_phone_number: '15550783881',
      event: 'FLAGGED',
      current_limit: 'TIER_10K',
    });
    expect(s).toMatchObject({
      channel: 'whatsapp',
      source: 'callback',
      waba_id: '200',
      phone_number_id: null,
      cause: 'FLAGGED',
      observed_at: 1763683200,
      phone_quality: 'RED',
      message_limit: 'TIER_10K',
      message_cap: null,
    });
    expect(s.refresh).toBeUndefined();
  });

  it('UNFLAGGED asks for the exact rating instead of guessing it', () => {
    const [s] = signalOf('phone_number_quality_update', { event: 'UNFLAGGED', current_limit: 'TIER_250' });
    expect(s).toMatchObject({ refresh: true, message_limit: 'TIER_250' });
    expect(s.phone_quality).toBeUndefined();
  });

  it('an upgrade to TIER_1K is TIER_2K capped at 1000; the business limit stands in for a missing current_limit', () => {
    expect(
      signalOf('phone_number_quality_update', { event: 'UPGRADE', old_limit: 'TIER_250', current_limit: 'TIER_1K' })[0],
    ).toMatchObject({ message_limit: 'TIER_2K', message_cap: 1000 });
    expect(
      signalOf('phone_number_quality_update', {
        event: 'UPGRADE',
        max_daily_conversations_per_business: 'TIER_UNLIMITED',
      })[0],
    ).toMatchObject({ message_limit: 'TIER_UNLIMITED' });
  });

  it('business_capability_update: the daily conversation cap per number', () => {
    expect(
      signalOf('business_capability_update', {
        max_daily_conversation_per_phone: 10000,
        max_phone_numbers_per_business: 2,
      })[0],
    ).toMatchObject({ cause: 'business_capability_update', message_limit: 'TIER_10K', message_cap: null });
  });

  it('DISABLED_UPDATE: DISABLE blocks, REINSTATE activates, SCHEDULE_FOR_DISABLE changes nothing yet', () => {
    const ban = (state: string) =>
      normalizeWhatsAppWebhook(
        webhook('account_update', { event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: state } }),
        now,
      );
    expect(ban('DISABLE').signals[0]).toMatchObject({ status: 'BLOCKED' });
    expect(ban('REINSTATE').signals[0]).toMatchObject({ status: 'ACTIVE' });
    const warned = ban('SCHEDULE_FOR_DISABLE');
    expect(warned.signals).toEqual([]);
    expect(warned.skipped).toEqual(['account_update DISABLED_UPDATE changes nothing']);
  });

  it('ACCOUNT_RESTRICTION of business-initiated messaging restricts until its expiration; an empty list lifts it', () => {
    const [on] = signalOf('account_update', {
      event: 'ACCOUNT_RESTRICTION',
      restriction_info: [
        { restriction_type: 'RESTRICTED_ADD_PHONE_NUMBER_ACTION', expiration: '2025-11-30T00:00:00Z' },
        { restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: '2025-11-22T00:00:00Z' },
      ],
    });
    expect(on).toMatchObject({ restricted: true, restricted_until: Date.parse('2025-11-22T00:00:00Z') / 1000 });
    expect(signalOf('account_update', { event: 'ACCOUNT_RESTRICTION', restriction_info: [] })[0]).toMatchObject({
      restricted: false,
      restricted_until: null,
    });
    expect(
      signalOf('account_update', {
        event: 'ACCOUNT_RESTRICTION',
        restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING' }],
      })[0],
    ).toMatchObject({ restricted: true, restricted_until: null });
  });

  it('a restriction of adding numbers or a violation notice changes nothing about sending', () => {
    expect(
      signalOf('account_update', {
        event: 'ACCOUNT_RESTRICTION',
        restriction_info: [
          { restriction_type: 'RESTRICTED_ADD_PHONE_NUMBER_ACTION', expiration: '2025-11-30T00:00:00Z' },
        ],
      }),
    ).toEqual([]);
    expect(
      signalOf('account_update', { event: 'ACCOUNT_VIOLATION', violation_info: { violation_type: 'SCAM' } }),
    ).toEqual([]);
  });

  it('offboarding or removal stops the app; reconnection resumes it', () => {
    for (const event of ['ACCOUNT_OFFBOARDED', 'ACCOUNT_DELETED', 'PARTNER_REMOVED', 'PARTNER_APP_UNINSTALLED']) {
      expect(signalOf('account_update', { event })[0]).toMatchObject({ is_stopped: true, cause: event });
    }
    expect(signalOf('account_update', { event: 'ACCOUNT_RECONNECTED' })[0]).toMatchObject({ is_stopped: false });
  });

  it('the same callback twice is the same signal id; a later one another', () => {
    const value = { event: 'FLAGGED', current_limit: 'TIER_250' };
    const a = normalizeWhatsAppWebhook(webhook('phone_number_quality_update', value), now).signals[0];
    const b = normalizeWhatsAppWebhook(webhook('phone_number_quality_update', { ...value }), new Date()).signals[0];
    const later = normalizeWhatsAppWebhook(webhook('phone_number_quality_update', value, 1763683300), now).signals[0];
    expect(a.id).toBe(b.id);
    expect(later.id).not.toBe(a.id);
  });

  it('an account change without a business account id is skipped', () => {
    const out = normalizeWhatsAppWebhook(
      {
        object: 'whatsapp_business_account',
        entry: [{ changes: [{ field: 'account_update', value: { event: 'ACCOUNT_DELETED' } }] }],
      },
      now,
    );
    expect(out.signals).toEqual([]);
    expect(out.skipped).toEqual(['change field account_update']);
  });
});
