export { NatsClients, connectNats } from './nats-connection';
export type { NatsConnectOptions } from './nats-connection';
export {
  declareStreams,
  declareConsumers,
  declareBuckets,
  setupTopology,
  deleteTopology,
  DEFAULT_TOPOLOGY_OPTIONS,
} from './streams';
export type {
  TopologyOptions,
  StreamDeclaration,
  ConsumerDeclaration,
  BucketDeclaration,
  SetupReport,
} from './streams';
export {
  DeliveryStateStore,
  DeliveryStateConflictError,
  deliveryStateBucket,
  deliveryStateKey,
  encodeDeliveryState,
  decodeDeliveryState,
  isDelivered,
  DELIVERY_STATE_TTL_MS,
} from './delivery-state';
export type { DeliveryState, DeliveryStateEntry } from './delivery-state';
export { publishDurable, encodeJson, toHeaders } from './publisher';
export type { PublishResult } from './publisher';
export { PulledMessage, pullNoWait, parseAckSubject } from './pulled-message';
export type { DeliveryMeta } from './pulled-message';
export { ConsumerRunner, settle, backoffDelay, deadLetter } from './consumer-runner';
export type { Settlement, MessageHandler, ConsumerSource, RunnerOptions, BackoffOptions } from './consumer-runner';
export { PrefixedServerNats, PrefixedClientNats } from './rpc';
export {
  MessagingModule,
  MESSAGING_OPTIONS,
  EventPublisher,
  RpcClient,
  RpcUnavailableError,
  RpcRemoteError,
} from './messaging.module';
export type { MessagingModuleOptions } from './messaging.module';
export { natsReadiness, NATS_READINESS } from './readiness';
