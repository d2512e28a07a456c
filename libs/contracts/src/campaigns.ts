import type { CampaignEngagement } from './campaign-engagement';
import type { CampaignVariant, CampaignVariantResult } from './campaign-variants';
import type { CampaignRunnerFigures } from './campaign-time-model';
import type { FrequencyRules } from './campaign-frequency';
import type { GatewaySendChannel } from './channels';
import type { FailoverStep } from './gateway-messages';
import type { SendContent } from './content';

/**
 * Campaigns (docs/campaigns.md): one template to an audience of a gateway account's contacts. The
 * gateway serves the resource (it owns the contacts the audience is drawn from); the api keeps each
 * campaign and runs it (it owns the one send path: consent, lanes, tier, holds, prices), so a
 * recipient's message and the mark that it was sent commit in one transaction.
 */
export const CAMPAIGNS_RPC = {
  create: 'campaigns.create',
  get: 'campaigns.get',
  list: 'campaigns.list',
  /** Replaces a draft's definition (the gateway merges a PATCH into the stored one first). */
  update: 'campaigns.update',
  delete: 'campaigns.delete',
  /** What an estimate needs of the api: the template's category, prices, balance, tier and pacing. */
  quote: 'campaigns.quote',
  /** Which channel of each route consent allows first (the estimate's dry run of the send's check). */
  consent: 'campaigns.consent',
  /** One page of a draft's recipients, resolved by the gateway from its contacts, before launch. */
  load: 'campaigns.load',
  launch: 'campaigns.launch',
  pause: 'campaigns.pause',
  resume: 'campaigns.resume',
  cancel: 'campaigns.cancel',
  /** The recipients report, a page at a time. */
  recipients: 'campaigns.recipients',
  /** Whose WhatsApp window is open (a content campaign's estimate). */
  windows: 'campaigns.windows',
  /** Which of a page of contacts received or read another campaign (an audience's engagement filter). */
  engagement: 'campaigns.engagement',
  /** The account's campaign settings (the frequency rules), and the estimate's dry run of them. */
  settings: 'campaigns.settings.get',
  updateSettings: 'campaigns.settings.update',
  frequency: 'campaigns.frequency',
} as const;

export const CAMPAIGN_STATES = ['draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];

/**
 * Why a campaign paused: the business asked, the balance does not cover the next message, the
 * campaign's budget is spent, the app's marketing is paused (quality RED or a restriction), or the
 * template can no longer be sent (paused, rejected, deleted).
 */
export const CAMPAIGN_PAUSE_REASONS = [
  'requested',
  'insufficient_balance',
  'budget_reached',
  'marketing_paused',
  'template_unavailable',
] as const;
export type CampaignPauseReason = (typeof CAMPAIGN_PAUSE_REASONS)[number];

/**
 * A recipient's place in the report: `pending` (not sent yet), `skipped` (never will be: see its
 * reason), else the status of its message (the last attempt's, over a failover route).
 */
export const CAMPAIGN_RECIPIENT_STATUSES = [
  'pending',
  'skipped',
  'queued',
  'sent',
  'delivered',
  'read',
  'failed',
] as const;
export type CampaignRecipientStatus = (typeof CAMPAIGN_RECIPIENT_STATUSES)[number];

/**
 * Why a recipient is skipped: excluded when the audience was resolved (`no_identity` on any
 * allowed channel, `duplicate` contact, `missing_param`: a field a param refers to is empty), or
 * when its turn came (`opted_out`, `consent_required`, `cancelled`, `end_by_passed`), or refused
 * by a rule no retry changes (`refused`, with the problem's detail).
 */
export const CAMPAIGN_SKIP_REASONS = [
  'no_identity',
  'duplicate',
  'missing_param',
  'opted_out',
  'consent_required',
  'cancelled',
  'end_by_passed',
  'refused',
  'frequency_cap',
  'recent_template',
  'window_closed',
] as const;
export type CampaignSkipReason = (typeof CAMPAIGN_SKIP_REASONS)[number];

/** Who the campaign goes to: one list, some contacts, or every contact matching a filter. */
export type CampaignAudience =
  | { list: string }
  | { contact_ids: string[] }
  | {
      filter: {
        lists?: string[];
        attributes?: Record<string, string | number>;
        /** Contacts by what they did with another campaign (docs/campaigns.md#engagement-filters). */
        engagement?: CampaignEngagement | null;
      };
    };

/** What a business defines (POST, PATCH while a draft). */
export interface CampaignDefinition {
  name: string;
  /** The template sent (absent when the campaign sends `content`). */
  template?: string;
  /** A free-form message sent as it is (docs/campaigns.md#content-campaigns), instead of `template`. */
  content?: SendContent | null;
  /** With `content`: the template WhatsApp recipients whose 24-hour window is closed are sent instead. */
  fallback_template?: string | null;
  language?: string | null;
  /** One per template variable (of `fallback_template` with `content`): text, with `{{contact.name}}`, `{{contact.external_id}}`, `{{contact.attributes.<key>}}` references. */
  params: string[];
  media_url?: string | null;
  audience: CampaignAudience;
  /** 1 to 3 distinct channels, tried in order (failover as a send to a contact). */
  channels: GatewaySendChannel[];
  /** ISO 8601 with a zone, or Unix seconds (the api keeps Unix seconds given as ISO 8601 in UTC). */
  schedule?: { start_at?: string | number | null; end_by?: string | number | null } | null;
  /** Local times `HH:MM` in each recipient's time zone: no message from `start` until `end`. */
  quiet_hours?: { start: string; end: string } | null;
  /** Messages per second at most (never above the channels' pacing). */
  rate?: number | null;
  /** The most the campaign may spend (held and captured), in the balance's currency. */
  budget?: number | null;
  /** Overrides the account's frequency rules field by field (docs/campaigns.md#frequency-rules). */
  frequency?: FrequencyRules | null;
  /** 2 to 4 templates sharing the audience by percentage (docs/campaigns.md#variants); absent: `template` for all. */
  variants?: CampaignVariant[] | null;
  /** Every https URL in the params becomes a tracked short link (docs/campaigns.md#tracked-links). */
  track_links?: boolean | null;
}

export type CampaignCounts = Record<CampaignRecipientStatus, number>;

/** A campaign as the gateway answers it. */
export interface CampaignView extends CampaignDefinition {
  id: string;
  state: CampaignState;
  pause_reason: CampaignPauseReason | null;
  /** Human words for the pause (the problem that caused it). */
  pause_detail: string | null;
  /** Recipients loaded at launch (every contact of the audience, excluded ones included). */
  recipients: number;
  counts: CampaignCounts;
  /** Recipients by the channel that carried (or is carrying) their message. */
  channels_used: Partial<Record<GatewaySendChannel, number>>;
  money: { currency: string | null; held: number; spent: number; committed: number };
  /** Messages accepted per second over the last minute. */
  current_rate: number;
  /** Unix seconds, like every time below: when the pending recipients should all be sent at the current pace; null when not running. */
  estimated_finish_at: number | null;
  created_at: number;
  updated_at: number;
  launched_at: number | null;
  started_at: number | null;
  completed_at: number | null;
  /** With variants: how each did, in their order. */
  variant_results?: CampaignVariantResult[];
  /** With tracked links: recipients who clicked one (a person, counted once). */
  clicked?: number;
  /** Recipients who replied to their message, each once (docs/campaigns.md#replies). */
  replied: number;
  /** Button, list and flow replies by the id pressed, most pressed first. */
  replies_by_button: CampaignButtonReplies[];
}

/**
 * How long after a campaign's message an inbound message of its recipient counts as a reply to it
 * (docs/campaigns.md#replies); a button press naming the message counts whenever it comes.
 */
export const CAMPAIGN_REPLY_WINDOW_HOURS = 72;

/** A recipient's reply as the report shows it: the first, or the first button press after it. */
export interface CampaignRecipientReply {
  /** `button`, `list`, `flow`, or the inbound content's type (`text`, `image`, ...) of a plain answer. */
  kind: string;
  /** The button's, row's or flow's id; null for a plain answer. */
  id: string | null;
  title: string | null;
  /** The text or caption; a button's title. */
  text: string | null;
}

/** How often one button (list row, flow) was the reply: `rate` is of the recipients who were sent it. */
export interface CampaignButtonReplies {
  id: string;
  title: string | null;
  count: number;
  /** `count` over the recipients whose message was accepted, 0 to 1 (4 decimals). */
  rate: number;
}

export interface CampaignRef {
  account_id: string;
  id: string;
}

export interface CreateCampaignRequest {
  account_id: string;
  user_id: string;
  definition: CampaignDefinition;
}

export interface UpdateCampaignRequest extends CampaignRef {
  definition: CampaignDefinition;
}

export interface ListCampaignsRequest {
  account_id: string;
  state?: CampaignState;
  cursor?: string | null;
  limit: number;
}

export interface ListCampaignsResult {
  data: CampaignView[];
  next_cursor: string | null;
}

export interface CampaignQuoteRequest extends CampaignRef {
  /** The linked WhatsApp app whose templates the account sends; null without one (bot templates alone). */
  template_app_id: number | null;
}

/** Pacing the api's campaign runner keeps to, per sender (a WhatsApp number, a bot), messages per second. */
export type ChannelPacing = Record<GatewaySendChannel, number>;

export interface CampaignQuote {
  category: string;
  currency: string;
  /** The price of one message on each channel (what a send holds). */
  prices: Record<GatewaySendChannel, number>;
  /** What the balance can still hold. */
  balance: number;
  /** The WhatsApp app's tier (null without an app): unique template recipients per 24 hours, and how many are still free now. */
  tier: { cap: number; label: string; remaining: number } | null;
  pacing: ChannelPacing;
  /** The runner answering: its tick, batch cap and measured pass cost (docs/campaigns.md#the-estimates-time). */
  runner: CampaignRunnerFigures;
  /** A content campaign: whether it sends on WhatsApp (an app), and its fallback template's WhatsApp price (null without one). */
  content?: { whatsapp: boolean; fallback_price: number | null } | null;
}

/** Whose WhatsApp 24-hour window is open now, for a content campaign's estimate (at most 5,000 addresses). */
export interface CampaignWindowsRequest extends CampaignRef {
  template_app_id: number;
  to: string[];
}

export interface CampaignWindowsResult {
  /** One per address, in order. */
  open: boolean[];
}

export interface CampaignConsentRequest {
  user_id: string;
  /** The template's category (from the quote): it decides the purpose checked. */
  category: string;
  /** At most 5,000 routes. */
  routes: { channel: GatewaySendChannel; to: string }[][];
}

/** Per route: the index of the first channel consent allows, or -1 with the first refusal's reason. */
export interface CampaignConsentResult {
  allowed: { index: number; reason?: 'opted_out' | 'consent_required' }[];
}

/** One recipient of a campaign, resolved by the gateway at launch. */
export interface CampaignRecipientInput {
  /** Audience order, from 1. */
  seq: number;
  contact_id: string;
  external_id: string | null;
  /** IANA zone for quiet hours. */
  time_zone: string;
  /** The allowed channels the contact has an identity on (and the account a connection of), in order. */
  route: FailoverStep[];
  /** The params with the contact's fields filled in. */
  params: string[];
  /** Excluded when resolved: the recipient is recorded as skipped with this reason. */
  skip?: 'no_identity' | 'duplicate' | 'missing_param';
  /** With variants: the index of the contact's variant (its params are that variant's). */
  variant?: number | null;
}

export interface LoadCampaignRequest extends CampaignRef {
  /** True on the first page: recipients of an earlier, interrupted launch are dropped first. */
  reset: boolean;
  recipients: CampaignRecipientInput[];
  /** On the last page: the campaign launches with it, in the same transaction (a launch's fields, total counting this page). */
  launch?: Omit<LaunchCampaignRequest, keyof CampaignRef> | null;
}

export interface LoadCampaignResult {
  loaded: number;
  /** The launched campaign, when the page launched it. */
  campaign?: CampaignView;
}

export interface LaunchCampaignRequest extends CampaignRef {
  /** As the quote's: null for an account without a WhatsApp app. */
  template_app_id: number | null;
  /** Every recipient was loaded: this many in all (a check against an interrupted load). */
  total: number;
  /**
   * The launch's key (the client's Idempotency-Key, or one per launch request): a launch of a
   * campaign this key already launched answers the campaign instead of 409.
   */
  launch_key?: string | null;
}

export interface ListCampaignRecipientsRequest extends CampaignRef {
  status?: CampaignRecipientStatus;
  channel?: GatewaySendChannel;
  /** The last `seq` of the previous page. */
  after?: number | null;
  /** 1 to 1,000. */
  limit: number;
}

export interface CampaignRecipientView {
  seq: number;
  contact_id: string;
  external_id: string | null;
  status: CampaignRecipientStatus;
  skip_reason: CampaignSkipReason | null;
  /** The channel that carried the message (the last attempt's). */
  channel: GatewaySendChannel | null;
  message_id: string | null;
  failure_code: string | null;
  /** Unix seconds, like the two below. */
  queued_at: number | null;
  updated_at: number | null;
  /** When a pending recipient is due (quiet hours, the tier). */
  next_attempt_at: number | null;
  /** With variants: the name of the recipient's variant; null without. */
  variant: string | null;
  /** Unix seconds: when it first replied to its message; null before. */
  replied_at: number | null;
  reply: CampaignRecipientReply | null;
}

export interface ListCampaignRecipientsResult {
  data: CampaignRecipientView[];
  next_after: number | null;
}

/**
 * `data` of every campaign event (`campaign.started`, `.paused`, `.resumed`, `.cancelled`,
 * `.completed`): `counts` are read in the transaction that made the change, by the read `GET` makes.
 */
export interface CampaignEventData {
  campaign_id: string;
  account_id: string;
  name: string;
  state: CampaignState;
  reason: CampaignPauseReason | null;
  detail: string | null;
  counts: CampaignCounts;
}
