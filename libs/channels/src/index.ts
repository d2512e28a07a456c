export { ChannelRegistry, ChannelNotConfiguredError } from './channel-connector';
export type { ChannelConnector, SendResult } from './channel-connector';
export * from './whatsapp';
