import { Global, Injectable, Module } from '@nestjs/common';
import { CHANNELS } from '@app/contracts';
import { Clock, ReadinessProvider } from '@app/server';
import { ConnectionsModule } from '../connections/connections.module';
import { ConnectionsRepository } from '../connections/connections.repository';

/** A channel whose last relay attempt failed this recently is shown degraded. */
const RECENT_MS = 60_000;

/**
 * What readiness shows about each channel the gateway fronts: its connections by state and, for
 * WhatsApp, whether stored callbacks are being relayed (they wait while the api cannot say whose
 * they are). A failing channel makes the `channels` check degraded, never the gateway not-ready:
 * callbacks are still acknowledged and the other channels go on.
 */
@Injectable()
export class ChannelStatus {
  private lastRelayed = 0;
  private lastRelayFailure = 0;
  private relayError = '';
  private counts: Record<string, Record<string, number>> = {};

  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly clock: Clock,
  ) {}

  relayed(): void {
    this.lastRelayed = this.clock.nowMs();
  }

  relayFailed(err: unknown): void {
    this.lastRelayFailure = this.clock.nowMs();
    // A short reason, never a driver's text with addresses in it.
    this.relayError =
      err instanceof Error && err.name === 'RpcProblemError' ? 'owner lookup unavailable' : 'relay failed';
  }

  async refresh(): Promise<void> {
    this.counts = await this.connections.countsByChannel();
  }

  details(): Record<string, unknown> {
    const now = this.clock.nowMs();
    const relayFailing = this.lastRelayFailure > this.lastRelayed && now - this.lastRelayFailure < RECENT_MS;
    const channels = Object.fromEntries(
      CHANNELS.map((channel) => {
        const connections = this.counts[channel] ?? {};
        const failing = (connections.failing ?? 0) > 0 || (channel === 'whatsapp' && relayFailing);
        return [
          channel,
          {
            state: failing ? 'degraded' : 'ok',
            connections,
            ...(channel === 'whatsapp' && relayFailing ? { relay: this.relayError } : {}),
          },
        ];
      }),
    );
    const degraded = Object.values(channels).some((c) => c.state === 'degraded');
    return { ...(degraded ? { status: 'degraded' } : {}), channels };
  }
}

@Global()
@Module({ imports: [ConnectionsModule], providers: [Clock, ChannelStatus], exports: [ChannelStatus] })
export class ChannelStatusModule {}

export const CHANNELS_READINESS = Symbol('CHANNELS_READINESS');

/** The `channels` readiness check: per-channel state; it never makes the gateway not-ready. */
export const channelsReadiness: ReadinessProvider = {
  provide: CHANNELS_READINESS,
  inject: [ChannelStatus],
  useFactory: (status: ChannelStatus) => ({
    name: 'channels',
    // The counts are detail: the database check reports Postgres itself.
    check: () => status.refresh().catch(() => undefined),
    details: () => status.details(),
  }),
};
