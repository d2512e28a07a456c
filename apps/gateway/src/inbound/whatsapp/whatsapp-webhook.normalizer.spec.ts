import { callbackEventId } from '@app/contracts';
import { normalizeWhatsAppWebhook } from './whatsapp-webhook.normalizer';

const now = new Date('2025-11-21T00:00:00Z');

function messages(value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '200',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '1', phone_number_id: '100' },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

describe('normalizeWhatsAppWebhook', () => {
  it('derives the same event id from the same callback, and different ones per status', () => {
    const payload = messages({
      statuses: [{ id: 'wamid.A', status: 'delivered', timestamp: '1', recipient_id: '7999' }],
    });
    const a = normalizeWhatsAppWebhook(payload, now).events[0];
    const b = normalizeWhatsAppWebhook(JSON.parse(JSON.stringify(payload)), new Date()).events[0];
    expect(a.id).toBe(b.id);
    expect(a.id).toBe(callbackEventId('whatsapp', 'status', 'wamid.A', 'delivered'));
    const read = normalizeWhatsAppWebhook(
      messages({ statuses: [{ id: 'wamid.A', status: 'read', timestamp: '1', recipient_id: '7999' }] }),
      now,
    ).events[0];
    expect(read.id).not.toBe(a.id);
  });

  it('ignores statuses that are not delivery states and says so', () => {
    const out = normalizeWhatsAppWebhook(
      messages({ statuses: [{ id: 'wamid.A', status: 'played', timestamp: '1', recipient_id: '7999' }] }),
      now,
    );
    expect(out.events).toEqual([]);
    expect(out.skipped).toEqual(['status played']);
  });

  it('takes a status named like a property of every object (constructor) for an unknown one', () => {
    const statuses = ['constructor', 'toString', '__proto__'].map((status) => ({ id: 'wamid.A', status }));
    const out = normalizeWhatsAppWebhook(messages({ statuses }), now);
    expect(out.events).toEqual([]);
    expect(out.skipped).toEqual(['status constructor', 'status toString', 'status __proto__']);
  });

  it('takes the text of button and interactive replies and media captions', () => {
    const out = normalizeWhatsAppWebhook(
      messages({
        messages: [
          { from: '7999', id: 'w1', timestamp: '5', type: 'button', button: { text: 'Stop promotions', payload: 'x' } },
          {
            from: '7999',
            id: 'w2',
            timestamp: '5',
            type: 'interactive',
            interactive: { type: 'button_reply', button_reply: { id: 'a', title: 'Yes' } },
          },
          { from: '7999', id: 'w3', timestamp: '5', type: 'image', image: { id: 'm1', caption: 'my receipt' } },
          { from: '7999', id: 'w4', timestamp: '5', type: 'sticker' },
        ],
      }),
      now,
    );
    expect(out.events.map((e) => [e.type, (e.data as { text: string | null }).text])).toEqual([
      ['message.received', 'Stop promotions'],
      ['message.received', 'Yes'],
      ['message.received', 'my receipt'],
      ['message.received', null],
    ]);
    expect(out.events[0]).toMatchObject({ channel: 'whatsapp', app_id: null, user_id: null, created_at: 1763683200 });
  });

  it('records observed deliveries only for ids that can be ours', () => {
    const out = normalizeWhatsAppWebhook(
      messages({
        statuses: [
          {
            id: 'wamid.A',
            status: 'sent',
            timestamp: '1',
            recipient_id: '7999',
            biz_opaque_callback_data: '0192f0c8-0000-7000-8000-000000000001',
          },
          {
            id: 'wamid.B',
            status: 'sent',
            timestamp: '1',
            recipient_id: '7999',
            biz_opaque_callback_data: 'not ours: spaces',
          },
        ],
      }),
      now,
    );
    expect(out.observed).toEqual([{ messageId: '0192f0c8-0000-7000-8000-000000000001', providerMessageId: 'wamid.A' }]);
    expect(out.events.map((e) => (e.data as { message_id: string }).message_id)).toEqual([
      '0192f0c8-0000-7000-8000-000000000001',
      'wamid.B',
    ]);
  });

  it("names a campaign message's campaign in its status events", () => {
    const out = normalizeWhatsAppWebhook(
      messages({
        statuses: [
          {
            id: 'wamid.C',
            status: 'delivered',
            timestamp: '1',
            recipient_id: '7999',
            biz_opaque_callback_data: '0192f0c8-0000-7000-8000-000000000001:0192f0c8-0000-7000-8000-00000000c0de',
          },
        ],
      }),
      now,
    );
    expect(out.observed).toEqual([{ messageId: '0192f0c8-0000-7000-8000-000000000001', providerMessageId: 'wamid.C' }]);
    expect(out.events[0].data).toMatchObject({
      message_id: '0192f0c8-0000-7000-8000-000000000001',
      campaign_id: '0192f0c8-0000-7000-8000-00000000c0de',
      status: 'DELIVERED',
    });
  });

  it('maps a disabled template to FAILED with a reason, and ignores foreign payloads', () => {
    const out = normalizeWhatsAppWebhook(
      {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '200',
            time: 9,
            changes: [
              {
                field: 'message_template_status_update',
                value: {
                  event: 'DISABLED',
                  message_template_id: 5,
                  message_template_name: 'n',
                  message_template_language: 'en',
                  reason: 'NONE',
                },
              },
            ],
          },
        ],
      },
      now,
    );
    expect(out.events[0].data).toMatchObject({
      status: 'FAILED',
      reason: { code: 'DISABLED' },
      wa_id: '5',
      waba_id: '200',
    });
    expect(normalizeWhatsAppWebhook({ object: 'page', entry: [] }, now).events).toEqual([]);
    expect(normalizeWhatsAppWebhook('nonsense', now).events).toEqual([]);
  });

  it('passes on what the channel billed, in the platform words, and nothing when the status has no pricing', () => {
    const status = (pricing?: Record<string, unknown>) =>
      normalizeWhatsAppWebhook(
        messages({
          statuses: [{ id: 'wamid.P', status: 'delivered', timestamp: '1', recipient_id: '7999', pricing }],
        }),
        now,
      ).events[0].data as { pricing: unknown };
    expect(
      status({ billable: false, pricing_model: 'PMP', category: 'utility', type: 'free_customer_service' }).pricing,
    ).toEqual({
      category: 'UTILITY',
      channel_category: 'utility',
      type: 'free_customer_service',
      billable: false,
      pricing_model: 'PMP',
    });
    expect(
      status({ billable: true, pricing_model: 'PMP', category: 'authentication_international', type: 'regular' })
        .pricing,
    ).toMatchObject({ category: 'AUTHENTICATION_INTERNATIONAL', type: 'regular', billable: true });
    // billable is being retired; a type the platform does not know is none; so is a category it does not know.
    expect(status({ pricing_model: 'PMP', category: 'referral_conversion', type: 'gift' }).pricing).toEqual({
      category: null,
      channel_category: 'referral_conversion',
      type: null,
      billable: null,
      pricing_model: 'PMP',
    });
    expect(status().pricing).toBeNull();
    expect(status({ billable: true }).pricing).toBeNull();
  });

  it('turns a completed template category change into template.updated, and a notice of one into nothing', () => {
    const change = (value: Record<string, unknown>) => ({
      object: 'whatsapp_business_account',
      entry: [{ id: '200', time: 1763700000, changes: [{ field: 'template_category_update', value }] }],
    });
    const template = {
      message_template_id: 278077987957091,
      message_template_name: 'welcome',
      message_template_language: 'en_US',
    };
    const done = normalizeWhatsAppWebhook(
      change({ ...template, previous_category: 'UTILITY', new_category: 'MARKETING' }),
      now,
    );
    expect(done.events).toEqual([
      {
        id: callbackEventId('whatsapp', 'template_category', '278077987957091', 'UTILITY', 'MARKETING', 1763700000),
        type: 'template.updated',
        created_at: Math.floor(now.getTime() / 1000),
        channel: 'whatsapp',
        app_id: null,
        user_id: null,
        data: {
          waba_id: '200',
          wa_id: '278077987957091',
          name: 'welcome',
          language: 'en_US',
          template_id: null,
          previous_category: 'UTILITY',
          category: 'MARKETING',
          reason: 'channel_recategorized',
        },
      },
    ]);
    const notice = normalizeWhatsAppWebhook(
      change({
        ...template,
        correct_category: 'MARKETING',
        new_category: 'UTILITY',
        category_update_timestamp: 1763786400,
      }),
      now,
    );
    expect(notice.events).toEqual([]);
    expect(notice.skipped).toEqual(['notice of an impending template category change']);
    expect(normalizeWhatsAppWebhook(change({ new_category: 'MARKETING' }), now).events).toEqual([]);
  });

  it('names a template by its exact digits, and skips one whose id a JSON number no longer holds exactly', () => {
    const statusUpdate = (raw: string) =>
      normalizeWhatsAppWebhook(
        JSON.parse(
          `{"object":"whatsapp_business_account","entry":[{"id":"200","time":9,"changes":[{"field":"message_template_status_update",` +
            `"value":{"event":"APPROVED","message_template_id":${raw},"message_template_name":"n","message_template_language":"en","reason":"NONE"}}]}]}`,
        ),
        now,
      );
    // The largest integer a double holds exactly, and Graph's id as a string: both kept digit for digit.
    expect(statusUpdate('9007199254740991').events.map((e) => e.data.wa_id)).toEqual(['9007199254740991']);
    expect(statusUpdate('"9999999999999999"').events.map((e) => e.data.wa_id)).toEqual(['9999999999999999']);
    // Parsed, 9999999999999999 is 10000000000000000: it would name another template.
    const rounded = statusUpdate('9999999999999999');
    expect(rounded.events).toEqual([]);
    expect(rounded.skipped).toEqual([expect.stringContaining('past the integers a JSON number holds exactly')]);
    const category = normalizeWhatsAppWebhook(
      JSON.parse(
        `{"object":"whatsapp_business_account","entry":[{"id":"200","changes":[{"field":"template_category_update",` +
          `"value":{"message_template_id":9007199254740993,"previous_category":"UTILITY","new_category":"MARKETING"}}]}]}`,
      ),
      now,
    );
    expect(category.events).toEqual([]);
    expect(category.skipped).toEqual([expect.stringContaining('past the integers a JSON number holds exactly')]);
  });
});
