export * from './channels/registration';
export * from './channels/registry';
export { WHATSAPP_CHANNEL } from './channels/whatsapp';
export { TELEGRAM_CHANNEL } from './channels/telegram';
export { MAX_CHANNEL } from './channels/max';
export { COURSE_CHANNEL } from './channels/course';

/**
 * Template and conversation categories (the API's Template.category, docs/api.md, plus
 * MARKETING_LITE), and AUTHENTICATION_INTERNATIONAL: a category the channel bills (an
 * authentication template to a number in a country with international authentication rates),
 * never one a message is sent as.
 */
export const MESSAGE_CATEGORIES = [
  'MARKETING',
  'MARKETING_LITE',
  'UTILITY',
  'SERVICE',
  'AUTHENTICATION',
  'AUTHENTICATION_INTERNATIONAL',
] as const;
export type MessageCategory = (typeof MESSAGE_CATEGORIES)[number];

export function isMessageCategory(value: unknown): value is MessageCategory {
  return typeof value === 'string' && (MESSAGE_CATEGORIES as readonly string[]).includes(value);
}

/**
 * How the channel billed a delivered message (WhatsApp's per-message pricing: the `type` of a
 * status callback's `pricing`): `regular` at the category's rate; `free_customer_service` (a
 * utility template or a free-form message inside the customer's open service window) and
 * `free_entry_point` (within 72 hours of a click-to-WhatsApp ad or a Page call to action) free.
 */
export const PRICING_TYPES = ['regular', 'free_customer_service', 'free_entry_point'] as const;
export type PricingType = (typeof PRICING_TYPES)[number];

/** What a status callback says the channel billed for its message (`data.pricing` of status events). */
export interface ChannelPricing {
  /** The category billed, in the platform's words (MARKETING, UTILITY, AUTHENTICATION_INTERNATIONAL, ...); null when the channel named one the platform does not know. */
  category: MessageCategory | null;
  /** The channel's own word for it, as given (marketing_lite, referral_conversion, ...). */
  channel_category: string;
  /** regular, free_customer_service or free_entry_point; null when the callback gives none (older API versions). */
  type: PricingType | null;
  /** false when the channel does not bill the message; null when the callback does not say. */
  billable: boolean | null;
  /** PMP (per-message pricing) since July 2025; CBP before. */
  pricing_model: string | null;
}

/** `data.pricing` of a status event as the contract shapes it, or null when it is absent or not that shape. */
export function parseChannelPricing(value: unknown): ChannelPricing | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const p = value as Record<string, unknown>;
  const orNull = <T>(v: unknown, ok: (v: unknown) => v is T): T | null | undefined =>
    v === null || v === undefined ? null : ok(v) ? v : undefined;
  const category = orNull(p.category, isMessageCategory);
  const type = orNull(p.type, (v): v is PricingType => (PRICING_TYPES as readonly unknown[]).includes(v));
  const billable = orNull(p.billable, (v): v is boolean => typeof v === 'boolean');
  const model = orNull(p.pricing_model, (v): v is string => typeof v === 'string');
  if (category === undefined || type === undefined || billable === undefined || model === undefined) return null;
  if (typeof p.channel_category !== 'string') return null;
  return { category, channel_category: p.channel_category, type, billable, pricing_model: model };
}

/** Whether the channel billed nothing for the message. */
export function isFreeOfCharge(p: Pick<ChannelPricing, 'type' | 'billable'>): boolean {
  return p.billable === false || p.type === 'free_customer_service' || p.type === 'free_entry_point';
}

/** Which outbound stream carries a message: marketing waits behind everything else. */
export type Priority = 'service' | 'marketing';

export function priorityOf(category: MessageCategory | null | undefined): Priority {
  return category === 'MARKETING' || category === 'MARKETING_LITE' ? 'marketing' : 'service';
}
export { IsRegisteredChannel } from './channels/is-registered-channel';
