export * from './graph.types';
export { classifyGraphFailure, parseRetryAfter } from './graph-errors';
export type { GraphFailure, ClassifiedFailure } from './graph-errors';
export { hubSignature, verifyHubSignature } from './webhook-signature';
export {
  toGraphMessage,
  toGraphTemplateMessage,
  messagesEndpoint,
  InvalidOutboundMessageError,
} from './whatsapp-message.mapper';
export {
  templateVariables,
  exampleValues,
  toGraphCategory,
  fromGraphCategory,
  toGraphComponents,
  toGraphTemplateCreate,
  toGraphTemplateEdit,
  fromGraphTemplateStatus,
  fromGraphQuality,
  fromGraphReason,
  fromGraphTemplate,
} from './whatsapp-template.mapper';
export {
  WhatsAppConnector,
  WhatsAppApiError,
  WHATSAPP_DEFAULT_API_VERSION,
  WHATSAPP_DEFAULT_TIMEOUT_MS,
  WHATSAPP_DEFAULT_PACING,
} from './whatsapp.connector';
export type { WhatsAppConnectorConfig } from './whatsapp.connector';
export { GraphClient } from './graph-client';
export type { GraphClientConfig, GraphOutcome, GraphRequest } from './graph-client';
export { WhatsAppSignup, SIGNUP_SCOPES } from './whatsapp-signup';
export type {
  WhatsAppSignupConfig,
  GraphTokenExchange,
  GraphDebugToken,
  GraphGranularScope,
  GraphPhoneNumber,
} from './whatsapp-signup';
