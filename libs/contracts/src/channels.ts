/** Messenger channels the queue delivers to. */
export const CHANNELS = ['whatsapp', 'telegram', 'max', 'course'] as const;
export type Channel = (typeof CHANNELS)[number];

export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && (CHANNELS as readonly string[]).includes(value);
}

/** Template and conversation categories (the API's Template.category, docs/api.md, plus MARKETING_LITE). */
export const MESSAGE_CATEGORIES = ['MARKETING', 'MARKETING_LITE', 'UTILITY', 'SERVICE', 'AUTHENTICATION'] as const;
export type MessageCategory = (typeof MESSAGE_CATEGORIES)[number];

/** Which outbound stream carries a message: marketing waits behind everything else. */
export type Priority = 'service' | 'marketing';

export function priorityOf(category: MessageCategory | null | undefined): Priority {
  return category === 'MARKETING' || category === 'MARKETING_LITE' ? 'marketing' : 'service';
}
