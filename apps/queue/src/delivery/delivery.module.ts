import { Global, Module } from '@nestjs/common';
import { ChannelRegistry, WhatsAppConnector } from '@app/channels';
import { ReadinessProvider } from '@app/server';
import { QueueConfig } from '../config';
import { DeliveryService } from './delivery.service';

/** The channels this service can reach; a channel without a connector gets no worker. */
export function createChannelRegistry(config: QueueConfig): ChannelRegistry {
  return new ChannelRegistry([
    new WhatsAppConnector({
      graphUrl: config.WHATSAPP_GRAPH_URL,
      apiVersion: config.WHATSAPP_API_VERSION,
      accessToken: config.WHATSAPP_ACCESS_TOKEN,
      timeoutMs: config.WHATSAPP_TIMEOUT_MS,
    }),
  ]);
}

export const DELIVERY_READINESS = Symbol('DELIVERY_READINESS');

/** Readiness detail: the per-channel worker state. It never fails readiness by itself. */
export const deliveryReadiness: ReadinessProvider = {
  provide: DELIVERY_READINESS,
  inject: [DeliveryService],
  useFactory: (delivery: DeliveryService) => ({
    name: 'delivery',
    check: async () => undefined,
    details: () => ({ ...delivery.details() }),
  }),
};

/** Global so that the health module's readiness check can read the workers' state. */
@Global()
@Module({
  providers: [{ provide: ChannelRegistry, inject: [QueueConfig], useFactory: createChannelRegistry }, DeliveryService],
  exports: [DeliveryService],
})
export class DeliveryModule {}
