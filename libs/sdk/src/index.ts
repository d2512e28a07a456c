export { createApiClient, createGatewayClient, isFinalStatus, MessagingError, unwrap } from './client';
export type {
  ApiClient,
  ApiMessageStatus,
  ApiSend,
  ClientOptions,
  CourseEvent,
  CourseEventQuery,
  GatewayClient,
  GatewaySend,
  GatewaySendAccepted,
  MessageQuery,
  MessageReport,
  Problem,
  SendOptions,
  WaitOptions,
} from './client';
export { hasEnded } from './campaigns';
export type {
  Campaign,
  CampaignDefinition,
  CampaignEstimate,
  CampaignPatch,
  CampaignQuery,
  CampaignRecipient,
  CampaignsClient,
  CampaignWaitOptions,
  RecipientQuery,
} from './campaigns';
export { IMPORT_CONTENT_TYPES, importFormatOf } from './contacts';
export type {
  Contact,
  ContactBody,
  ContactImport,
  ContactQuery,
  ContactsClient,
  ImportFormat,
  ImportOptions,
  ImportRejection,
  ImportStream,
} from './contacts';
export { paginate } from './pages';
export type { CursorPage } from './pages';
export { isRetryable, retryAfterMs, retryingFetch, sendWithRetries } from './retry';
export type { RetryDeps, RetryOptions } from './retry';
export { verifyWebhook, WebhookVerificationError } from './webhooks';
export type { WebhookEvent } from './webhooks';
export type * as ApiSchema from './generated/api';
export type * as GatewaySchema from './generated/gateway';
