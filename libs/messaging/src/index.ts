export {
  NatsClients,
  connectNats,
  natsAuth,
  natsInboxPrefix,
  RECONNECT_FOREVER,
  withOwnInbox,
} from './nats-connection';
export type { NatsConnectOptions, NatsAuth } from './nats-connection';
export {
  natsPermissions,
  natsUsers,
  natsPasswordVariable,
  natsAuthorization,
  natsAuthorizationConfig,
  randomNatsPasswords,
  natsServerEnv,
  natsInboxWildcard,
} from './nats-permissions';
export type {
  NatsPermissions,
  NatsServiceUser,
  NatsAuthorizationUser,
  NatsAuthorizationOptions,
} from './nats-permissions';
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
export {
  publishDurable,
  publishDurableWithin,
  PublishDeadlineError,
  PUBLISH_DEADLINE_MS,
  encodeJson,
  toHeaders,
} from './publisher';
export type { PublishResult } from './publisher';
export { PulledMessage, pullNoWait, parseAckSubject } from './pulled-message';
export type { DeliveryMeta } from './pulled-message';
export { ConsumerRunner, settle, backoffDelay, deadLetter, removeMessage, EVENTS_LINGER_MS } from './consumer-runner';
export type { Settlement, MessageHandler, ConsumerSource, RunnerOptions, BackoffOptions } from './consumer-runner';
export { RpcClient, RpcProblemError, rpcAnswer, PrefixedServerNats, RPC_RETRY_AFTER_SECONDS } from './rpc';
export type { RpcCallOptions } from './rpc';
export { BatchedRpc, rpcAnswerEach } from './rpc-batch';
export type { RpcBatchSubject } from './rpc-batch';
export { MESSAGING_OPTIONS } from './options';
export type { MessagingModuleOptions } from './options';
export { MessagingModule, EventPublisher } from './messaging.module';
export { natsReadiness, NATS_READINESS } from './readiness';
export {
  enableTracing,
  tracingEnabled,
  traceHeaders,
  currentTraceparent,
  contextFrom,
  inSpan,
  messagingAttributes,
  SpanKind,
} from './tracing';
export type { SpanSpec } from './tracing';
