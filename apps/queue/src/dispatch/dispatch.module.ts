import { Global, Module } from '@nestjs/common';
import { SecretBox } from '@app/auth';
import { ChannelRegistry, connectorFactory } from '@app/channels';
import { channelSettings } from '@app/config';
import { registeredChannels } from '@app/contracts';
import { Clock, ReadinessProvider } from '@app/server';
import { QueueConfig } from '../config';
import { DispatchService } from './dispatch.service';

/**
 * A connector for each channel registered with a connector factory (the built-in ones and those
 * CHANNEL_MODULES added), built from the settings its registration declares; a channel without one
 * gets no worker. Everything channel-specific (classification of refusals, pacing) lives in the connector.
 */
export function createChannelRegistry(config: QueueConfig): ChannelRegistry {
  const credentials = SecretBox.fromSpec(config.CREDENTIALS_KEYS);
  const ctx = {
    openCredential: (sealed: string) => credentials.open(sealed),
    allowPrivateTargets: config.allowPrivateTargets,
  };
  const connectors = registeredChannels().flatMap((reg) => {
    const factory = connectorFactory(reg.name);
    return factory ? [factory(channelSettings(config, reg), ctx)] : [];
  });
  return new ChannelRegistry(connectors);
}

export const DISPATCH_READINESS = Symbol('DISPATCH_READINESS');

/**
 * Readiness detail: the per-channel worker state. It never fails readiness by itself: a channel
 * whose worker is backed off (the channel failing) makes the check `degraded`, while the other
 * channels go on delivering.
 */
export const dispatchReadiness: ReadinessProvider = {
  provide: DISPATCH_READINESS,
  inject: [DispatchService],
  useFactory: (delivery: DispatchService) => ({
    name: 'dispatch',
    check: async () => undefined,
    details: () => {
      const details = delivery.details();
      const failing = Object.values(details.channels).some((c) => c?.state === 'backed_off');
      return { ...(failing ? { status: 'degraded' } : {}), ...details };
    },
  }),
};

/** Global so that the health module's readiness check can read the workers' state. */
@Global()
@Module({
  providers: [
    { provide: ChannelRegistry, inject: [QueueConfig], useFactory: createChannelRegistry },
    Clock,
    DispatchService,
  ],
  exports: [DispatchService],
})
export class DispatchModule {}
