import { Global, Module } from '@nestjs/common';
import { SecretBox } from '@app/auth';
import { ChannelRegistry, MaxConnector, TelegramConnector, WhatsAppConnector } from '@app/channels';
import { TargetPolicy } from '@app/egress';
import { ReadinessProvider } from '@app/server';
import { QueueConfig } from '../config';
import { DispatchService } from './dispatch.service';

/**
 * The channels this service can reach, one line per channel; a channel without a connector gets no
 * worker. Everything channel-specific (classification of refusals, pacing) lives in the connector.
 */
export function createChannelRegistry(config: QueueConfig): ChannelRegistry {
  const credentials = SecretBox.fromSpec(config.CREDENTIALS_KEYS);
  const openCredential = (sealed: string) => credentials.open(sealed);
  return new ChannelRegistry([
    new WhatsAppConnector({
      graphUrl: config.WHATSAPP_GRAPH_URL,
      apiVersion: config.WHATSAPP_API_VERSION,
      accessToken: config.WHATSAPP_ACCESS_TOKEN,
      timeoutMs: config.WHATSAPP_TIMEOUT_MS,
      pacing: {
        ratePerSender: config.QUEUE_WHATSAPP_RATE_PER_SENDER,
        burst: config.QUEUE_WHATSAPP_BURST_PER_SENDER,
        recipientIntervalMs: config.QUEUE_WHATSAPP_RECIPIENT_INTERVAL_MS,
      },
    }),
    new TelegramConnector({
      apiUrl: config.TELEGRAM_API_URL,
      timeoutMs: config.BOT_API_TIMEOUT_MS,
      openCredential,
      pacing: {
        ratePerSender: config.QUEUE_TELEGRAM_RATE_PER_BOT,
        recipientIntervalMs: config.QUEUE_TELEGRAM_CHAT_INTERVAL_MS,
      },
    }),
    new MaxConnector({
      apiUrl: config.MAX_API_URL,
      timeoutMs: config.BOT_API_TIMEOUT_MS,
      openCredential,
      pacing: { ratePerSender: config.QUEUE_MAX_RATE_PER_BOT },
      mediaTargets: new TargetPolicy({ allowPrivate: config.allowPrivateTargets }),
    }),
  ]);
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
  providers: [{ provide: ChannelRegistry, inject: [QueueConfig], useFactory: createChannelRegistry }, DispatchService],
  exports: [DispatchService],
})
export class DispatchModule {}
