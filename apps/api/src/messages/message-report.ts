import { maskAddress, MessageReport, unixSeconds } from '@app/contracts';
import type { MessageEventEntity } from './message-event.entity';
import type { MessageEntity } from './message.entity';

/**
 * What anyone may see of a message: status, timeline, price, failure, the campaign and contact it
 * was sent for; never its content. The recipient is masked the way its address kind on the channel
 * says (a phone, a Telegram chat id or @username, a MAX user id: enough for support to recognise,
 * never whole).
 */
export function messageReport(message: MessageEntity, timeline: MessageEventEntity[]): MessageReport {
  return {
    id: message.id,
    channel: message.channel,
    status: message.status,
    category: message.category,
    to: maskAddress(message.channel, message.recipient),
    price: message.price,
    billed_category: message.billedCategory,
    pricing_type: message.pricingType,
    charged: message.charged,
    currency: message.currency,
    created_at: unixSeconds(message.createdAt),
    updated_at: unixSeconds(message.updatedAt),
    failure: message.status === 'FAILED' ? { code: message.failureCode, reason: message.failureReason } : null,
    timeline: timeline.map((e) => ({ status: e.status, timestamp: e.occurredAt })),
    campaign_id: message.campaignId ?? null,
    contact: message.contactId ? { id: message.contactId, external_id: message.contactExternalId ?? null } : null,
    rendered_as: message.renderedAs ?? null,
  };
}
