/**
 * The parts of the WhatsApp Cloud (Graph) API this platform speaks: request and response bodies of
 * the messages and message_templates endpoints, and the webhook payloads. Shared by the connector,
 * the gateway's inbound endpoint and the sandbox emulator, so both sides agree on one shape.
 */

/** Graph's error body, returned with a 4xx or 5xx status. */
export interface GraphErrorBody {
  error: {
    message: string;
    type: string;
    code: number;
    error_subcode?: number;
    error_user_title?: string;
    error_user_msg?: string;
    error_data?: { messaging_product?: 'whatsapp'; details: string };
    fbtrace_id: string;
  };
}

/** A media message's file: by `link`, or by the `id` an upload to the number's media endpoint gave. */
export type GraphMediaObject = ({ link: string; id?: undefined } | { id: string; link?: undefined }) & {
  caption?: string;
  filename?: string;
  voice?: boolean;
};

export interface GraphTextParameter {
  type: 'text';
  text: string;
}
export interface GraphPayloadParameter {
  type: 'payload';
  payload: string;
}
export type GraphMediaParameter =
  | { type: 'image'; image: { link: string } }
  | { type: 'video'; video: { link: string } }
  | { type: 'document'; document: { link: string } };

/** A COPY_CODE button's coupon. */
export interface GraphCouponParameter {
  type: 'coupon_code';
  coupon_code: string;
}
/** A FLOW button's token, returned with the submitted Flow. */
export interface GraphFlowActionParameter {
  type: 'action';
  action: { flow_token: string };
}

export type GraphTemplateMessageComponent =
  | { type: 'header'; parameters: (GraphTextParameter | GraphMediaParameter)[] }
  | { type: 'body'; parameters: GraphTextParameter[] }
  | {
      type: 'button';
      sub_type: 'url' | 'quick_reply' | 'copy_code' | 'flow';
      index: string;
      parameters: (GraphTextParameter | GraphPayloadParameter | GraphCouponParameter | GraphFlowActionParameter)[];
    };

export interface GraphTemplateMessage {
  name: string;
  language: { code: string; policy?: 'deterministic' };
  components?: GraphTemplateMessageComponent[];
}

/** The body of `POST /{phone_number_id}/messages`. */
export type GraphMessageBody = {
  messaging_product: 'whatsapp';
  recipient_type: 'individual';
} & (
  | { to: string }
  /** A business-scoped user id (no phone known): Meta takes it as `recipient` instead of `to`. */
  | { recipient: string }
) & {
    /** Echoed by the channel in this message's status webhooks: carries our message id. */
    biz_opaque_callback_data?: string;
  } & (
    | { type: 'text'; text: { body: string; preview_url?: boolean } }
    | { type: 'image'; image: GraphMediaObject }
    | { type: 'video'; video: GraphMediaObject }
    | { type: 'document'; document: GraphMediaObject }
    | { type: 'audio'; audio: GraphMediaObject }
    | { type: 'reaction'; reaction: { message_id: string; emoji: string } }
    | { type: 'template'; template: GraphTemplateMessage }
    | { type: 'interactive'; interactive: Record<string, unknown> }
  );

export interface GraphSendResponse {
  messaging_product: 'whatsapp';
  contacts: { input: string; wa_id: string }[];
  messages: { id: string; message_status?: string }[];
}

/** Graph's own template categories (SERVICE and MARKETING_LITE are the platform's words). */
export type GraphTemplateCategory = 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';

export interface GraphTemplateButton {
  type: 'QUICK_REPLY' | 'URL' | 'PHONE_NUMBER' | 'COPY_CODE' | 'FLOW';
  /** Every type but COPY_CODE (whose label the channel sets). */
  text?: string;
  url?: string;
  phone_number?: string;
  /** URL: the example URL; COPY_CODE: the sample code (a string). */
  example?: string[] | string;
  flow_id?: string;
  flow_action?: string;
  navigate_screen?: string;
}

export interface GraphTemplateComponent {
  type: 'HEADER' | 'BODY' | 'FOOTER' | 'BUTTONS';
  format?: 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT';
  text?: string;
  example?: { header_text?: string[]; header_handle?: string[]; body_text?: string[][] };
  buttons?: GraphTemplateButton[];
}

/** The body of `POST /{waba_id}/message_templates`. */
export interface GraphTemplateCreate {
  name: string;
  language: string;
  category: GraphTemplateCategory;
  parameter_format?: 'POSITIONAL' | 'NAMED';
  components: GraphTemplateComponent[];
}

/** The body of `POST /{template_id}` (edit). */
export interface GraphTemplateEdit {
  category?: GraphTemplateCategory;
  components: GraphTemplateComponent[];
}

export interface GraphTemplateCreateResponse {
  id: string;
  status: string;
  category: string;
}

/** One template in `GET /{waba_id}/message_templates`. */
export interface GraphTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  components?: GraphTemplateComponent[];
  quality_score?: { score: string; date?: number };
  rejected_reason?: string;
}

/** A Flow of `GET /{waba_id}/flows`. */
export interface GraphFlow {
  id: string;
  name: string;
  status: string;
  categories?: string[];
}

export interface GraphPage<T> {
  data: T[];
  paging?: { cursors?: { before?: string; after?: string }; next?: string; previous?: string };
}

// ---- Webhooks -------------------------------------------------------------------------------

export interface WhatsAppWebhookPayload {
  object: 'whatsapp_business_account';
  entry: WebhookEntry[];
}

export interface WebhookEntry {
  /** The WhatsApp Business Account id. */
  id: string;
  /** Unix seconds at which the webhook was triggered (template and account changes). */
  time?: number;
  changes: WebhookChange[];
}

export interface WebhookChange {
  field: string;
  value: unknown;
}

export interface WebhookStatusError {
  code: number;
  title: string;
  message?: string;
  error_data?: { details: string };
  href?: string;
}

/**
 * What the channel billed for a message, in its sent, delivered and read statuses (per-message
 * pricing since July 2025). `category`: marketing, marketing_lite, utility, authentication,
 * authentication_international, service (referral_conversion with free_entry_point on older
 * versions); `type`: regular, free_customer_service, free_entry_point. `billable` is deprecated in
 * favour of `type` and may be absent.
 */
export interface WebhookPricing {
  billable?: boolean;
  pricing_model: string;
  category: string;
  type?: string;
}

export interface WebhookStatus {
  id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed' | 'played' | 'deleted';
  /** Unix seconds, as a string. */
  timestamp: string;
  recipient_id: string;
  /** The recipient's business-scoped user id (a send to it may carry no phone in `recipient_id`). */
  recipient_user_id?: string;
  /** What the send carried in `biz_opaque_callback_data` (our message id, and its campaign's). */
  biz_opaque_callback_data?: string;
  conversation?: { id: string; expiration_timestamp?: string; origin: { type: string } };
  pricing?: WebhookPricing;
  errors?: WebhookStatusError[];
}

export interface WebhookInboundMessage {
  /** The sender's phone; absent for a sender known only by a business-scoped user id. */
  from?: string;
  /** The sender's business-scoped user id (BSUID, since 2026). */
  from_user_id?: string;
  id: string;
  timestamp: string;
  type: string;
  text?: { body: string };
  reaction?: { message_id: string; emoji?: string };
  image?: { id: string; mime_type?: string; caption?: string };
  video?: { id: string; mime_type?: string; caption?: string };
  document?: { id: string; mime_type?: string; caption?: string; filename?: string };
  audio?: { id: string; mime_type?: string; voice?: boolean };
  button?: { text: string; payload?: string };
  interactive?: {
    type: string;
    button_reply?: { id: string; title: string };
    list_reply?: { id: string; title: string };
  };
  context?: { from?: string; id?: string };
  /** The other message types (sticker, location, contacts, nfm_reply, system, ...): read loosely. */
  [field: string]: unknown;
}

/** `value` of a change with `field: "messages"`. */
export interface MessagesChangeValue {
  messaging_product: 'whatsapp';
  metadata: { display_phone_number: string; phone_number_id: string };
  contacts?: { profile?: { name?: string; username?: string }; wa_id?: string; user_id?: string }[];
  messages?: WebhookInboundMessage[];
  statuses?: WebhookStatus[];
  errors?: WebhookStatusError[];
}

/** `value` of a change with `field: "message_template_status_update"`. */
/**
 * `value` of a change with `field: "template_category_update"`. A completed change carries
 * `previous_category` and `new_category`; a notice of an impending one carries `correct_category`
 * (what it will be in 24 hours), `new_category` (what it is now) and `category_update_timestamp`.
 */
export interface TemplateCategoryUpdateValue {
  message_template_id: number | string;
  message_template_name: string;
  message_template_language: string;
  previous_category?: string;
  new_category: string;
  correct_category?: string;
  category_update_timestamp?: number;
}

export interface TemplateStatusUpdateValue {
  event: string;
  message_template_id: number | string;
  message_template_name: string;
  message_template_language: string;
  reason?: string | null;
  message_template_category?: string;
  rejection_info?: { reason: string; recommendation?: string };
  other_info?: { title: string; description: string };
}
