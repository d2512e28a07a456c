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
export { paginate } from './pages';
export type { CursorPage } from './pages';
export { isRetryable, retryAfterMs, retryingFetch } from './retry';
export type { RetryDeps, RetryOptions } from './retry';
export { verifyWebhook, WebhookVerificationError } from './webhooks';
export type { WebhookEvent } from './webhooks';
export type * as ApiSchema from './generated/api';
export type * as GatewaySchema from './generated/gateway';
