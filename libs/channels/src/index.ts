export { ChannelRegistry, ChannelNotConfiguredError, sendTimeoutOf, uploadsMedia } from './channel-connector';
export type {
  ChannelConnector,
  SendResult,
  SendFailure,
  FailureScope,
  PacingLimits,
  MediaUploader,
  MediaUploadResult,
  MediaUploadSource,
} from './channel-connector';
export * from './whatsapp';
export * from './telegram';
export * from './max';
import './built-in-connectors';
import './built-in-bot-access';
export { registerConnectorFactory, connectorFactory, pacingOf } from './connector-factories';
export type { ConnectorFactory, ConnectorContext } from './connector-factories';
export { registerBotAccessFactory, botAccessFactory } from './bot-access';
export type { BotChannelAccess, BotAccessFactory } from './bot-access';
export { templateHtml, escapeHtml } from './bots/bot-text';
export { httpCall, HTTP_ANSWER_LIMIT_BYTES } from './http-call';
export { redactSecrets } from './failure-text';
export type { HttpCall, HttpAnswer, HttpInit } from './http-call';
export * from './media-download';
