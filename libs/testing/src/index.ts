export { startTestInfra } from './infra';
export { standInForAutovacuum, AUTOVACUUM_DEFAULTS } from './autovacuum';
export type { AutovacuumSettings, AutovacuumStand } from './autovacuum';
export type { TestInfra, TestInfraOptions } from './infra';
export { waitFor, sleep } from './wait';
export { pgWire } from './pg-wire';
export type { PgWire } from './pg-wire';
export { spawnTs, waitForLine, killHard, REPO_ROOT } from './processes';
export { rpcProblem } from './rpc';
export { readStream, readEvents, eventsOf, eventsEventually, eventsHandledBy } from './events';
export {
  freePort,
  freePortPair,
  canListen,
  portAnswers,
  waitForPort,
  stopChild,
  startEmbeddedPostgres,
  startNatsServer,
  hasNatsServer,
  NATS_SERVER_BIN,
  NATS_SERVER_MISSING,
} from './local-infra';
export type { LocalService, EmbeddedPostgresOptions } from './local-infra';
export { startFloodServer } from './flood-server';
export type { FloodServer } from './flood-server';
export { browserIt, findChromium, CHROMIUM_INSTALL } from './browser';
export { documentedRoutesOf, itDocumentsEveryRoute, operationsOf, schemaOf } from './openapi-routes';
export type { DocumentedRoute } from './openapi-routes';
export { startNatsProxy } from './nats-proxy';
export type { NatsProxy } from './nats-proxy';
