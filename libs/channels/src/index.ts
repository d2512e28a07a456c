export { ChannelRegistry, ChannelNotConfiguredError } from './channel-connector';
export type { ChannelConnector, SendResult, SendFailure, FailureScope, PacingLimits } from './channel-connector';
export * from './whatsapp';
export * from './telegram';
export * from './max';
export { templateHtml, escapeHtml } from './bots/bot-text';
export { httpCall, HTTP_ANSWER_LIMIT_BYTES } from './http-call';
export { redactSecrets } from './failure-text';
export type { HttpCall, HttpAnswer, HttpInit } from './http-call';
