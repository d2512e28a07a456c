import {
  APPS_RPC,
  DescribeAppReply,
  DescribeAppRequest,
  ResolveConnectionReply,
  ResolveConnectionRequest,
  StartSignupReply,
  StartSignupRequest,
} from './apps';
import { AppSignal, ApplySignalReply, NumbersHealthReply, NumbersHealthRequest } from './app-signals';
import {
  GATEWAY_MESSAGES_RPC,
  ServiceWindowsRequest,
  ServiceWindowsResult,
  GatewaySendRequest,
  GatewaySendResult,
  GetMessageReportRequest,
  GetMessageReportResult,
  ListMessageReportsRequest,
  ListMessageReportsResult,
  ReadTargetRequest,
  ReadTargetResult,
} from './gateway-messages';
import type { CampaignSpendPage, GetCampaignSpendRequest, GetUsageRequest, UsageReport } from './usage';
import {
  GATEWAY_ACCOUNT_RPC,
  GatewayBalance,
  GatewayBalanceRequest,
  GatewayTransactionsPage,
  GatewayTransactionsRequest,
  GatewayWebhooksRequest,
} from './gateway-account';
import type {
  CampaignFrequencyRequest,
  CampaignFrequencyResult,
  CampaignSettings,
  GetCampaignSettingsRequest,
  UpdateCampaignSettingsRequest,
} from './campaign-frequency';
import { CampaignEngagementRequest, CampaignEngagementResult } from './campaign-engagement';
import {
  CAMPAIGNS_RPC,
  CampaignConsentRequest,
  CampaignConsentResult,
  CampaignQuote,
  CampaignQuoteRequest,
  CampaignWindowsRequest,
  CampaignWindowsResult,
  CampaignRef,
  CampaignView,
  CreateCampaignRequest,
  LaunchCampaignRequest,
  ListCampaignRecipientsRequest,
  ListCampaignRecipientsResult,
  ListCampaignsRequest,
  ListCampaignsResult,
  LoadCampaignRequest,
  LoadCampaignResult,
  UpdateCampaignRequest,
} from './campaigns';
import {
  ApplyConsentRequest,
  ApplyConsentResult,
  CONSENT_RPC,
  ConsentHistoryRequest,
  ConsentHistoryResult,
  ConsentSettings,
  GetConsentSettingsRequest,
  ReadConsentRequest,
  ReadConsentResult,
  UpdateConsentSettingsRequest,
} from './consent';
import {
  AttemptView,
  CreatedSubscriptionView,
  CreateSubscriptionRequest,
  DeliveryPage,
  DeliveryPageRequest,
  DeliveryView,
  ListAttemptsRequest,
  ListDeliveriesRequest,
  ResendRequest,
  ResendView,
  RotatedSecretView,
  SubscriptionRef,
  SUBSCRIPTIONS_RPC,
  SubscriptionView,
  TenantScoped,
  TestEventView,
  UpdateSubscriptionRequest,
} from './subscriptions';
import {
  CompleteSignupReply,
  CompleteSignupRequest,
  DeleteTemplateReply,
  DeleteTemplateRequest,
  ListTemplatesReply,
  ListTemplatesRequest,
  SubmitTemplateReply,
  SubmitTemplateRequest,
  UpdateTemplateReply,
  UpdateTemplateRequest,
  WHATSAPP_RPC,
} from './whatsapp';
import {
  CreateBotTemplateRequest,
  DeleteBotTemplateRequest,
  DeleteBotTemplateResult,
  GATEWAY_TEMPLATES_RPC,
  GatewayTemplateView,
  GetGatewayTemplateRequest,
  GetGatewayTemplateResult,
  ListGatewayTemplatesRequest,
  ListGatewayTemplatesResult,
} from './bot-templates';
import {
  ClaimMediaHandleRequest,
  ClaimMediaHandleResult,
  KeepMediaHandleRequest,
  KeepMediaHandleResult,
  MEDIA_RPC,
} from './media-library';

/**
 * A refusal returned as data over request/reply, in RFC 9457 terms, so the caller answers its own
 * client with the same problem. `code` is the answering side's own error code (the channel's, for
 * templates).
 */
export interface RpcProblem {
  status: number;
  slug: string;
  title: string;
  detail?: string;
  code?: string;
  errors?: { field: string; message: string }[];
  /** The problem's other members (a consent refusal's channel, purpose and since), answered as they are. */
  extensions?: Record<string, unknown>;
  /** Seconds the caller should wait before retrying (a 429 or 503 refusal). */
  retry_after?: number;
}

/** What every request/reply handler answers: its result, or the problem that stopped it. */
export type RpcReply<T> = { result: T; problem?: undefined } | { problem: RpcProblem; result?: undefined };

/** Requests of one kind sent together: the responder handles each as if it came alone. */
export interface RpcBatchRequest<T> {
  items: T[];
  /** Tracing on: each item's W3C `traceparent` (null where its caller had none), so each keeps its own trace. */
  traceparents?: (string | null)[];
}

/** The answer to each item of an `RpcBatchRequest`, in the same order. */
export interface RpcBatchResult<T> {
  answers: RpcReply<T>[];
}

/** Every request/reply subject with the request it takes and the result it answers. */
export interface RpcMethods {
  [APPS_RPC.resolveConnection]: { request: ResolveConnectionRequest; result: ResolveConnectionReply };
  [APPS_RPC.describe]: { request: DescribeAppRequest; result: DescribeAppReply };
  [APPS_RPC.applySignal]: { request: AppSignal; result: ApplySignalReply };
  [APPS_RPC.startSignup]: { request: StartSignupRequest; result: StartSignupReply };
  [WHATSAPP_RPC.submitTemplate]: { request: SubmitTemplateRequest; result: SubmitTemplateReply };
  [WHATSAPP_RPC.updateTemplate]: { request: UpdateTemplateRequest; result: UpdateTemplateReply };
  [WHATSAPP_RPC.deleteTemplate]: { request: DeleteTemplateRequest; result: DeleteTemplateReply };
  [WHATSAPP_RPC.listTemplates]: { request: ListTemplatesRequest; result: ListTemplatesReply };
  [WHATSAPP_RPC.completeSignup]: { request: CompleteSignupRequest; result: CompleteSignupReply };
  [WHATSAPP_RPC.numbersHealth]: { request: NumbersHealthRequest; result: NumbersHealthReply };
  [GATEWAY_MESSAGES_RPC.send]: { request: GatewaySendRequest; result: GatewaySendResult };
  [GATEWAY_MESSAGES_RPC.sendBatch]: {
    request: RpcBatchRequest<GatewaySendRequest>;
    result: RpcBatchResult<GatewaySendResult>;
  };
  [GATEWAY_MESSAGES_RPC.get]: { request: GetMessageReportRequest; result: GetMessageReportResult };
  [GATEWAY_MESSAGES_RPC.list]: { request: ListMessageReportsRequest; result: ListMessageReportsResult };
  [GATEWAY_MESSAGES_RPC.usage]: { request: GetUsageRequest; result: UsageReport };
  [GATEWAY_MESSAGES_RPC.readTarget]: { request: ReadTargetRequest; result: ReadTargetResult };
  [GATEWAY_MESSAGES_RPC.campaignSpend]: { request: GetCampaignSpendRequest; result: CampaignSpendPage };
  [GATEWAY_MESSAGES_RPC.windows]: { request: ServiceWindowsRequest; result: ServiceWindowsResult };
  [MEDIA_RPC.claim]: { request: ClaimMediaHandleRequest; result: ClaimMediaHandleResult };
  [MEDIA_RPC.keep]: { request: KeepMediaHandleRequest; result: KeepMediaHandleResult };
  [GATEWAY_TEMPLATES_RPC.create]: { request: CreateBotTemplateRequest; result: GatewayTemplateView };
  [GATEWAY_TEMPLATES_RPC.list]: { request: ListGatewayTemplatesRequest; result: ListGatewayTemplatesResult };
  [GATEWAY_TEMPLATES_RPC.get]: { request: GetGatewayTemplateRequest; result: GetGatewayTemplateResult };
  [GATEWAY_TEMPLATES_RPC.delete]: { request: DeleteBotTemplateRequest; result: DeleteBotTemplateResult };
  [CONSENT_RPC.apply]: { request: ApplyConsentRequest; result: ApplyConsentResult };
  [CONSENT_RPC.read]: { request: ReadConsentRequest; result: ReadConsentResult };
  [CONSENT_RPC.history]: { request: ConsentHistoryRequest; result: ConsentHistoryResult };
  [CONSENT_RPC.settings]: { request: GetConsentSettingsRequest; result: ConsentSettings };
  [CONSENT_RPC.updateSettings]: { request: UpdateConsentSettingsRequest; result: ConsentSettings };
  [CAMPAIGNS_RPC.create]: { request: CreateCampaignRequest; result: CampaignView };
  [CAMPAIGNS_RPC.get]: { request: CampaignRef; result: CampaignView };
  [CAMPAIGNS_RPC.list]: { request: ListCampaignsRequest; result: ListCampaignsResult };
  [CAMPAIGNS_RPC.update]: { request: UpdateCampaignRequest; result: CampaignView };
  [CAMPAIGNS_RPC.delete]: { request: CampaignRef; result: null };
  [CAMPAIGNS_RPC.quote]: { request: CampaignQuoteRequest; result: CampaignQuote };
  [CAMPAIGNS_RPC.consent]: { request: CampaignConsentRequest; result: CampaignConsentResult };
  [CAMPAIGNS_RPC.load]: { request: LoadCampaignRequest; result: LoadCampaignResult };
  [CAMPAIGNS_RPC.launch]: { request: LaunchCampaignRequest; result: CampaignView };
  [CAMPAIGNS_RPC.pause]: { request: CampaignRef; result: CampaignView };
  [CAMPAIGNS_RPC.resume]: { request: CampaignRef; result: CampaignView };
  [CAMPAIGNS_RPC.cancel]: { request: CampaignRef; result: CampaignView };
  [CAMPAIGNS_RPC.recipients]: { request: ListCampaignRecipientsRequest; result: ListCampaignRecipientsResult };
  [CAMPAIGNS_RPC.windows]: { request: CampaignWindowsRequest; result: CampaignWindowsResult };
  [CAMPAIGNS_RPC.engagement]: { request: CampaignEngagementRequest; result: CampaignEngagementResult };
  [CAMPAIGNS_RPC.settings]: { request: GetCampaignSettingsRequest; result: CampaignSettings };
  [CAMPAIGNS_RPC.updateSettings]: { request: UpdateCampaignSettingsRequest; result: CampaignSettings };
  [CAMPAIGNS_RPC.frequency]: { request: CampaignFrequencyRequest; result: CampaignFrequencyResult };
  [SUBSCRIPTIONS_RPC.create]: { request: CreateSubscriptionRequest; result: CreatedSubscriptionView };
  [SUBSCRIPTIONS_RPC.list]: { request: TenantScoped; result: SubscriptionView[] };
  [SUBSCRIPTIONS_RPC.get]: { request: SubscriptionRef; result: SubscriptionView };
  [SUBSCRIPTIONS_RPC.update]: { request: UpdateSubscriptionRequest; result: null };
  [SUBSCRIPTIONS_RPC.remove]: { request: SubscriptionRef; result: null };
  [SUBSCRIPTIONS_RPC.rotateSecret]: { request: SubscriptionRef; result: RotatedSecretView };
  [SUBSCRIPTIONS_RPC.sendTest]: { request: SubscriptionRef; result: TestEventView };
  [SUBSCRIPTIONS_RPC.listAttempts]: { request: ListAttemptsRequest; result: AttemptView[] };
  [SUBSCRIPTIONS_RPC.listDeliveries]: { request: ListDeliveriesRequest; result: DeliveryView[] };
  [SUBSCRIPTIONS_RPC.pageDeliveries]: { request: DeliveryPageRequest; result: DeliveryPage };
  [SUBSCRIPTIONS_RPC.resend]: { request: ResendRequest; result: ResendView };
  [GATEWAY_ACCOUNT_RPC.balance]: { request: GatewayBalanceRequest; result: GatewayBalance };
  [GATEWAY_ACCOUNT_RPC.transactions]: { request: GatewayTransactionsRequest; result: GatewayTransactionsPage };
  /** The answer is the forwarded call's: GatewayWebhooksResult of its `call`. */
  [GATEWAY_ACCOUNT_RPC.webhooks]: { request: GatewayWebhooksRequest; result: unknown };
}

export type RpcSubject = keyof RpcMethods;
export type RpcRequest<S extends RpcSubject> = RpcMethods[S]['request'];
export type RpcResult<S extends RpcSubject> = RpcMethods[S]['result'];
