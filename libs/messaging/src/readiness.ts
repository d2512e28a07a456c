import { NatsClients } from './nats-connection';

export const NATS_READINESS = Symbol('NATS_READINESS');

/** Readiness: the NATS connection is up and the server answers a ping. */
export const natsReadiness = {
  provide: NATS_READINESS,
  inject: [NatsClients],
  useFactory: (clients: NatsClients) => ({
    name: 'nats',
    check: () => clients.ping(1500),
  }),
};
