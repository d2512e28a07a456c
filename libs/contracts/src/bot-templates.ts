import type { GatewaySendChannel } from './channels';
import type { SendContent } from './content';
import type { TemplateQuality } from './whatsapp';

/**
 * The gateway's templates (`/v1/templates`), served by the api, which owns templates: the
 * account's bot templates (its own, for Telegram and MAX) and, beside them, the linked WhatsApp
 * app's Meta templates.
 */
export const GATEWAY_TEMPLATES_RPC = {
  /** A bot template's next version (the first, or the one after the latest of its name and language). */
  create: 'templates.gateway.create',
  /** A page of the account's templates: its bot templates and its WhatsApp app's, by name and language. */
  list: 'templates.gateway.list',
  /** Every template of one name: the latest (or a given) version of each language, and the Meta ones. */
  get: 'templates.gateway.get',
  /** Every version of a bot template name (of one language, when given). */
  delete: 'templates.gateway.delete',
} as const;

/** What a bot template is sent as: its lane and its price (MARKETING needs marketing consent). */
export const BOT_TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY'] as const;
export type BotTemplateCategory = (typeof BOT_TEMPLATE_CATEGORIES)[number];

/** The channels a bot template can be sent on. */
export const BOT_TEMPLATE_CHANNELS = ['telegram', 'max'] as const satisfies readonly GatewaySendChannel[];

/** A template as the gateway lists it: a bot template (`source: bot`) or a Meta one (`source: whatsapp`). */
export interface GatewayTemplateView {
  name: string;
  language: string;
  category: string;
  source: 'bot' | 'whatsapp';
  /** The channels a send of this name and language uses this template on. */
  channels: GatewaySendChannel[];
  /** Bot templates: 1 for the first, one more for each repeat of the name and language. */
  version: number | null;
  /** Meta templates: APPROVED, PENDING, REJECTED, PAUSED… (only APPROVED ones are sent). */
  status: string | null;
  /** Meta templates: Meta's quality rating of the template (its quality_score, kept by the template sync); bot templates: null. */
  quality: TemplateQuality | null;
  /** Bot templates: what is sent, with `{{n}}` placeholders. */
  content: SendContent | null;
  /** How many `params` a send of it takes. */
  params: number;
  /** Unix seconds. */
  created_at: number;
}

export interface CreateBotTemplateRequest {
  account_id: string;
  user_id: string;
  name: string;
  language: string;
  category: BotTemplateCategory;
  content: SendContent;
}

export interface ListGatewayTemplatesRequest {
  account_id: string;
  /** The linked WhatsApp app, whose Meta templates are listed beside the bot templates. */
  app_id: number | null;
  cursor?: string;
  limit: number;
}

export interface ListGatewayTemplatesResult {
  data: GatewayTemplateView[];
  next_cursor: string | null;
}

export interface GetGatewayTemplateRequest {
  account_id: string;
  app_id: number | null;
  name: string;
  language?: string;
  /** A bot template's older version (with `language`). */
  version?: number;
}

export interface GetGatewayTemplateResult {
  data: GatewayTemplateView[];
}

export interface DeleteBotTemplateRequest {
  account_id: string;
  name: string;
  language?: string;
}

export interface DeleteBotTemplateResult {
  deleted: number;
}
