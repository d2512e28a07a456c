import { OutboundMessage } from '@app/contracts';
import { messageFailedEvent, messageSentEvent, outcomeEventId } from './dispatch-events';

const msg: OutboundMessage = {
  id: '0193a1b2-0000-7000-8000-000000000001',
  channel: 'whatsapp',
  priority: 'service',
  category: 'UTILITY',
  user_id: 'u-1',
  app_id: 7,
  sender: { connection_id: '1000001' },
  recipient: '79990001122',
  kind: 'TEXT',
  content: { text: { body: 'hi' } },
  queued_at: 1,
};
const NOW_MS = Date.parse('2025-06-01T12:00:00.750Z');

describe('outcome events', () => {
  it('derive one stable event id per message and outcome, so a republish is a duplicate', () => {
    expect(outcomeEventId(msg.id, 'sent')).toBe(outcomeEventId(msg.id, 'sent'));
    expect(outcomeEventId(msg.id, 'sent')).not.toBe(outcomeEventId(msg.id, 'failed'));
    expect(outcomeEventId(msg.id, 'sent')).not.toBe(outcomeEventId(`${msg.id}x`, 'sent'));
    expect(outcomeEventId(msg.id, 'sent')).toMatch(/^evt_[0-9a-f]{32}$/);
  });

  it('carry the tenant, channel, status data and the time of the outcome', () => {
    const sent = messageSentEvent(msg, 'wamid.X', NOW_MS);
    expect(sent).toMatchObject({
      type: 'message.sent',
      created_at: NOW_MS / 1000 - 0.75,
      channel: 'whatsapp',
      app_id: 7,
      user_id: 'u-1',
      data: {
        message_id: msg.id,
        recipient: msg.recipient,
        status: 'SENT',
        provider_message_id: 'wamid.X',
        category: 'UTILITY',
        timestamp: NOW_MS / 1000 - 0.75,
      },
    });
    const failed = messageFailedEvent(msg, { code: '131026', title: 'Message undeliverable' }, NOW_MS);
    expect(failed.data).toMatchObject({
      status: 'FAILED',
      error: { code: '131026', title: 'Message undeliverable', retryable: false },
    });
  });

  it("name a campaign's message's campaign, and leave the field out for other messages", () => {
    const campaign = { ...msg, campaign_id: '0193a1b2-0000-7000-8000-0000000000c1' };
    expect(messageSentEvent(campaign, 'wamid.X', NOW_MS).data).toMatchObject({ campaign_id: campaign.campaign_id });
    expect(messageFailedEvent(campaign, { code: 'x', title: 'y' }, NOW_MS).data).toMatchObject({
      campaign_id: campaign.campaign_id,
    });
    expect(messageSentEvent(msg, 'wamid.X', NOW_MS).data).not.toHaveProperty('campaign_id');
  });

  it('carry what a message the api made shows in its conversation, and leave it out for other messages', () => {
    const shown = { type: 'template', text: null, template: { name: 'promo', language: 'en', params: ['Ann'] } };
    const made = { ...msg, thread_content: shown };
    expect(messageSentEvent(made, 'wamid.X', NOW_MS).data).toMatchObject({ content: shown });
    expect(messageFailedEvent(made, { code: 'x', title: 'y' }, NOW_MS).data).toMatchObject({ content: shown });
    expect(messageSentEvent(msg, 'wamid.X', NOW_MS).data).not.toHaveProperty('content');
  });
});
