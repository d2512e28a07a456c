// The NATS client's connection class and transport hook are exported under `@nats-io/nats-core/internal`
// through the package's `exports` map, which this repository's CommonJS resolution does not read for
// types; the declarations themselves are the package's own.
declare module '@nats-io/nats-core/internal' {
  export { NatsConnectionImpl, setTransportFactory } from '@nats-io/nats-core/lib/internal_mod';
}
