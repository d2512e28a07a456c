import type { InboundContent, InboundSender } from './inbound-content';

/**
 * Request/reply between the api (owner of apps and templates) and the gateway (owner of channel
 * connections), served by the gateway through the WhatsApp connector. Patterns are put under the
 * topology prefix by the transport.
 */
export const WHATSAPP_RPC = {
  submitTemplate: 'whatsapp.templates.submit',
  updateTemplate: 'whatsapp.templates.update',
  deleteTemplate: 'whatsapp.templates.delete',
  listTemplates: 'whatsapp.templates.list',
  completeSignup: 'whatsapp.signup.complete',
  /** Quality rating, messaging limit tier and status of numbers (the account signals pull). */
  numbersHealth: 'whatsapp.numbers.health',
} as const;

/** What the onboarding page reports from the embedded signup: a claim until the channel proves it. */
export interface CompleteSignupRequest {
  /** The code of the signup (exchanged once for the business's token). */
  code: string;
  waba_id: string;
  phone_number_id: string;
}

/** The number as the channel describes it, once the signup is proven to have granted it. */
export interface CompleteSignupReply {
  waba_id: string;
  phone_number_id: string;
  /** International format, digits only, read from the channel. */
  phone: string;
  verified_name: string | null;
}

/** Where an app's WhatsApp number lives on the channel (recorded at onboarding). */
export interface WhatsAppConnection {
  waba_id: string;
  phone_number_id: string;
}

/**
 * WhatsApp's customer-service window: free-form messages may answer a customer for this long after
 * their last message. The api's send check and a conversation's `window` both read it.
 */
export const WHATSAPP_SERVICE_WINDOW_SECONDS = 24 * 60 * 60;

export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'SERVICE', 'MARKETING_LITE', 'AUTHENTICATION'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];

export function isTemplateCategory(value: unknown): value is TemplateCategory {
  return typeof value === 'string' && (TEMPLATE_CATEGORIES as readonly string[]).includes(value);
}

/** The channel's own template categories: SERVICE and MARKETING_LITE are the platform's words. */
export type ChannelTemplateCategory = 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';

/** The category the channel files a template under: a service template is a utility one, MM Lite is marketing. */
export function channelCategoryOf(category: TemplateCategory): ChannelTemplateCategory {
  switch (category) {
    case 'MARKETING':
    case 'MARKETING_LITE':
      return 'MARKETING';
    case 'AUTHENTICATION':
      return 'AUTHENTICATION';
    case 'UTILITY':
    case 'SERVICE':
      return 'UTILITY';
  }
}

/** A category the channel names, in the platform's words; what it does not know is UTILITY. */
export function fromChannelCategory(category: string): ChannelTemplateCategory {
  const upper = category.toUpperCase();
  return upper === 'MARKETING' || upper === 'AUTHENTICATION' ? upper : 'UTILITY';
}
export type TemplateType = 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT';
export type TemplateStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'FAILED' | 'PAUSED';
export type TemplateQuality = 'UNKNOWN' | 'GREEN' | 'YELLOW' | 'RED';

/** The buttons a WhatsApp template may have (docs/api.md#templates). */
export const TEMPLATE_BUTTON_TYPES = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE', 'FLOW'] as const;
export type TemplateButtonType = (typeof TEMPLATE_BUTTON_TYPES)[number];

/** How a FLOW button opens its Flow. */
export const TEMPLATE_FLOW_ACTIONS = ['navigate', 'data_exchange'] as const;
export type TemplateFlowAction = (typeof TEMPLATE_FLOW_ACTIONS)[number];

/**
 * A template button as submitted: QUICK_REPLY (text); URL (url, with an example when it ends in
 * `{{1}}`); PHONE_NUMBER (phone_number); COPY_CODE (example: the sample code); FLOW (flow_id,
 * flow_action, navigate_screen).
 */
export interface TemplateButtonSubmission {
  type: TemplateButtonType;
  text: string;
  url?: string;
  example?: string;
  phone_number?: string;
  flow_id?: string;
  flow_action?: TemplateFlowAction;
  navigate_screen?: string;
}

/** A template as submitted for moderation, in the platform's words (the connector maps it to Graph API). */
export interface TemplateSubmission {
  name: string;
  language: string;
  category: TemplateCategory;
  type: TemplateType;
  header?: { text: string; example: string } | null;
  example_media_url?: string | null;
  body: { text: string; example: string };
  footer?: string | null;
  buttons?: TemplateButtonSubmission[] | null;
}

export interface SubmitTemplateRequest {
  connection: WhatsAppConnection;
  template: TemplateSubmission;
}
export interface SubmitTemplateReply {
  wa_id: string;
  status: TemplateStatus;
}

export interface UpdateTemplateRequest {
  connection: WhatsAppConnection;
  wa_id: string;
  template: TemplateSubmission;
}
export interface UpdateTemplateReply {
  status: TemplateStatus;
}

export interface DeleteTemplateRequest {
  connection: WhatsAppConnection;
  wa_id: string;
  name: string;
}

export interface DeleteTemplateReply {
  deleted: true;
}

export interface ListTemplatesRequest {
  connection: WhatsAppConnection;
}
export interface ChannelTemplate {
  wa_id: string;
  name: string;
  language: string;
  status: TemplateStatus;
  category: TemplateCategory;
  quality: TemplateQuality;
  /** Why moderation rejected or failed it, when it did. */
  reason?: { code: string; message: string } | null;
}
export interface ListTemplatesReply {
  templates: ChannelTemplate[];
}

/** `template.status_changed` data: the app is found by `waba_id` (the gateway does not know apps). */
export interface TemplateStatusData {
  waba_id: string;
  wa_id: string;
  name: string;
  language: string;
  status: TemplateStatus;
  previous_status?: TemplateStatus | null;
  quality?: TemplateQuality | null;
  reason?: { code: string; message: string } | null;
}

/**
 * `template.updated` data: the channel (or the platform's periodic sync) moved a template to
 * another category. The channel re-categorises templates on its own (UTILITY -> MARKETING, say);
 * every send after it is priced and laned by `category`. Found like `template.status_changed`.
 */
export interface TemplateUpdatedData {
  waba_id: string;
  wa_id: string;
  name: string;
  language: string;
  /** The platform's template id, when the api emits the event (null from a channel callback). */
  template_id?: number | null;
  previous_category: TemplateCategory | null;
  category: TemplateCategory;
  /** `channel_recategorized` (the channel's callback) or `sync` (found by the periodic sync). */
  reason: 'channel_recategorized' | 'sync';
}

/** `message.received` data: an inbound message from a recipient (opens the 24-hour window). */
export interface MessageReceivedData {
  /** The business number's connection (WhatsApp phone_number_id, bot connection id). */
  connection_id: string;
  waba_id?: string | null;
  /**
   * The sender's address on the channel: WhatsApp phone digits when given, else the business-scoped
   * user id; Telegram chat id; MAX user id.
   */
  from: string;
  /** The sender's profile name, when the channel gives one. */
  profile_name?: string | null;
  provider_message_id: string;
  /** The kind of message: an InboundContentType (`content.type`); older subscribers read it as before. */
  type: string;
  /** The human-readable part (text, caption, a reply's title), as `content.text`. */
  text?: string | null;
  /** What the message holds, typed alike on every channel. */
  content: InboundContent;
  /** Who wrote: `from` is `sender.phone` when WhatsApp gives one, else `sender.user_id`. */
  sender: InboundSender;
  /** The channel's id of the message this one answers or quotes, when it does. */
  context_provider_message_id?: string | null;
  /**
   * MAX: the id of the dialog the user wrote in (not their user id), where the bot's typing and
   * read actions go; absent on other channels.
   */
  chat_id?: string | null;
  /** Unix seconds. */
  timestamp: number;
}

/** `message.reaction` data. */
export interface MessageReactionData {
  connection_id: string;
  waba_id?: string | null;
  from: string;
  /** The provider id of the message reacted to, and ours when known. */
  provider_message_id: string;
  message_id?: string | null;
  emoji: string;
  timestamp: number;
}

/** Our ids (UUIDs): anything that could not be a delivery-state key is not one of ours. */
const OUR_ID = /^[-_=A-Za-z0-9]{1,200}$/;

/**
 * What a WhatsApp send carries in `biz_opaque_callback_data` (at most 512 characters), which Meta
 * returns in every status callback of the message: our message id, then `:` and its campaign's id
 * when it belongs to one, so that callbacks name both.
 */
export function callbackDataOf(messageId: string, campaignId?: string | null): string {
  return campaignId ? `${messageId}:${campaignId}` : messageId;
}

/** Our message (and campaign) named by a callback's `biz_opaque_callback_data`; null when not ours. */
export function messageOfCallbackData(data: unknown): { messageId: string; campaignId: string | null } | null {
  if (typeof data !== 'string') return null;
  const [messageId, campaignId, ...rest] = data.split(':');
  if (rest.length || !OUR_ID.test(messageId)) return null;
  if (campaignId === undefined) return { messageId, campaignId: null };
  return OUR_ID.test(campaignId) ? { messageId, campaignId } : null;
}
