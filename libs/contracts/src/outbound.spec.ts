import { deadLetteredOutbound, OutboundMessage } from './outbound';

describe('the dead letter of an outbound work item', () => {
  const facts = { attempts: 10, reason: 'exhausted 10 deliveries: 130429: rate limited', at: 1_764_000_000_000 };

  it('keeps who, where, how often and why, and nothing the business wrote', () => {
    const item: OutboundMessage = {
      id: 'm-1',
      channel: 'telegram',
      priority: 'service',
      category: 'UTILITY',
      user_id: 'u-1',
      app_id: 7,
      sender: { connection_id: 'c-1', waba_id: null, credential: 'sealed-token' },
      recipient: '79990001122',
      kind: 'TEMPLATE',
      content: {
        template: {
          name: 'order_note',
          language: 'en',
          media: { type: 'IMAGE', url: 'https://cdn.example.com/secret.jpg' },
          body_values: ['secret value'],
          rendered_text: 'Your secret value',
        },
      },
      queued_at: 1_763_999_000_000,
    };
    const record = deadLetteredOutbound(item, facts);
    expect(record).toEqual({
      message_id: 'm-1',
      channel: 'telegram',
      priority: 'service',
      category: 'UTILITY',
      kind: 'TEMPLATE',
      user_id: 'u-1',
      app_id: 7,
      connection_id: 'c-1',
      queued_at: 1_763_999_000_000,
      attempts: 10,
      reason: facts.reason,
      dead_lettered_at: facts.at,
    });
    expect(JSON.stringify(record)).not.toMatch(/secret|sealed-token|79990001122|order_note/);
  });

  it('keeps only the delivery facts of an unreadable item', () => {
    expect(deadLetteredOutbound('not an object', facts)).toMatchObject({
      message_id: null,
      channel: null,
      app_id: null,
      connection_id: null,
      attempts: 10,
    });
    expect(deadLetteredOutbound({ id: 5, sender: 'x', queued_at: 'soon' }, facts)).toMatchObject({
      message_id: null,
      connection_id: null,
      queued_at: null,
    });
  });
});
