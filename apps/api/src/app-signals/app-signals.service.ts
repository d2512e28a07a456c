import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  AppSignal,
  ApplySignalReply,
  NUMBERS_HEALTH_BATCH,
  parseAppSignal,
  signalOfNumberHealth,
  unixSeconds,
} from '@app/contracts';
import { Clock, PeriodicService } from '@app/server';
import { ApiConfig } from '../config';
import { AppEntity } from '../wa-apps/app.entity';
import { AppEvents } from '../wa-apps/app-events';
import { marketingPauseOf } from '../wa-apps/marketing-pause';
import { WaAppsRepository } from '../wa-apps/wa-apps.repository';
import { WhatsAppTemplatesChannel } from '../templates/whatsapp-templates.channel';

/** The columns a signal changes and what `app.updated` says about them. */
export interface SignalDiff {
  columns: Partial<
    Pick<
      AppEntity,
      'messageLimit' | 'messageCap' | 'phoneQuality' | 'status' | 'isStopped' | 'restricted' | 'restrictedUntil'
    >
  >;
  data: Record<string, unknown>;
}

const seconds = (d: Date | null): number | null => (d ? unixSeconds(d) : null);

/**
 * What a signal changes about an app: only fields that differ. An app without a number
 * (INACTIVE) is never activated by one. UNFLAGGED (`refresh`) lifts a RED rating to UNKNOWN
 * until the channel tells the exact one.
 */
export function diffOf(app: AppEntity, s: AppSignal): SignalDiff {
  const out: SignalDiff = { columns: {}, data: {} };
  if (s.message_limit !== undefined) {
    const cap = s.message_cap ?? null;
    if (app.messageLimit !== s.message_limit || app.messageCap !== cap) {
      out.columns.messageLimit = s.message_limit;
      out.columns.messageCap = cap;
      out.data.message_limit = s.message_limit;
      if (cap !== null) out.data.message_cap = cap;
    }
  }
  const quality = s.phone_quality ?? (s.refresh && app.phoneQuality === 'RED' ? 'UNKNOWN' : undefined);
  if (quality !== undefined && app.phoneQuality !== quality) {
    out.columns.phoneQuality = quality;
    out.data.phone_quality = quality;
  }
  if (s.status !== undefined && app.status !== 'INACTIVE' && app.status !== s.status) {
    out.columns.status = s.status;
    out.data.status = s.status;
  }
  if (s.is_stopped !== undefined && app.isStopped !== s.is_stopped) {
    out.columns.isStopped = s.is_stopped;
    out.data.is_stopped = s.is_stopped;
  }
  if (s.restricted !== undefined) {
    const until = s.restricted && s.restricted_until ? new Date(s.restricted_until * 1000) : null;
    if (app.restricted !== s.restricted || seconds(app.restrictedUntil) !== seconds(until)) {
      out.columns.restricted = s.restricted;
      out.columns.restrictedUntil = until;
      out.data.restricted = s.restricted;
      out.data.restricted_until = seconds(until);
    }
  }
  return out;
}

/**
 * Live account signals of WhatsApp apps: callbacks relayed by the gateway and a periodic pull of
 * each number's state (APP_SIGNALS_SYNC_INTERVAL_MS; 0 disables) go through `apply`, which
 * changes only what differs (a repeated signal changes nothing) and publishes `app.updated`.
 */
@Injectable()
export class AppSignalsService extends PeriodicService<number> {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly apps: WaAppsRepository,
    private readonly appEvents: AppEvents,
    private readonly channel: WhatsAppTemplatesChannel,
    private readonly clock: Clock,
    config: ApiConfig,
  ) {
    super('app signals sync', config.APP_SIGNALS_SYNC_INTERVAL_MS);
  }

  /** One pull over every number (or the one under way); resolves with the apps it changed. */
  syncAll(): Promise<number> {
    return this.runNow();
  }

  /** A signal as received over request/reply: malformed or unknown ones change nothing. */
  async apply(raw: unknown): Promise<ApplySignalReply> {
    const signal = parseAppSignal(raw);
    if (!signal) return { changed: [] };
    const result = await this.ds.transaction(async (em) => {
      const repo = em.getRepository(AppEntity);
      const lock = { mode: 'pessimistic_write' as const };
      const app =
        (signal.phone_number_id
          ? await repo.findOne({ where: { phoneNumberId: signal.phone_number_id }, lock })
          : null) ?? (signal.waba_id ? await repo.findOne({ where: { wabaId: signal.waba_id }, lock }) : null);
      if (!app) return null;
      const diff = diffOf(app, signal);
      if (Object.keys(diff.columns).length) await repo.update({ id: app.id }, diff.columns);
      return { app: Object.assign(app, diff.columns), diff };
    });
    if (!result) {
      this.logger.debug({ signal: signal.id, cause: signal.cause }, 'account signal for no app');
      return { changed: [] };
    }
    const { app, diff } = result;
    const changed = Object.keys(diff.data).length > 0;
    if (changed) {
      this.logger.log(
        { appId: app.id, cause: signal.cause, source: signal.source, ...diff.data },
        'app signal applied',
      );
      await this.appEvents.updated(app, {
        ...diff.data,
        marketing_paused: marketingPauseOf(app, this.clock.now()) !== null,
        reason: signal.cause,
      });
    }
    // UNFLAGGED says the rating is no longer low, not what it is: ask the channel now (without
    // holding up the relay; the periodic pull repairs a refresh that fails).
    if (signal.refresh) {
      void this.syncApps([app]).catch((err) => this.logger.warn({ err, appId: app.id }, 'refresh failed'));
    }
    return { changed: changed ? [app.id] : [] };
  }

  /** Asks the channel for the numbers' state and applies the differences; returns how many apps changed. */
  async syncApps(apps: AppEntity[]): Promise<number> {
    let changed = 0;
    for (let i = 0; i < apps.length; i += NUMBERS_HEALTH_BATCH) {
      const batch = apps.slice(i, i + NUMBERS_HEALTH_BATCH).filter((a) => a.wabaId && a.phoneNumberId);
      if (!batch.length) continue;
      const reply = await this.channel.numbersHealth({
        numbers: batch.map((a) => ({ waba_id: a.wabaId as string, phone_number_id: a.phoneNumberId as string })),
      });
      for (const health of reply.numbers) {
        if ('error' in health) {
          this.logger.warn({ phoneNumberId: health.phone_number_id, code: health.error }, 'number state not read');
          continue;
        }
        const signal = signalOfNumberHealth(health, unixSeconds(this.clock.now()));
        if (signal) changed += (await this.apply(signal)).changed.length;
      }
    }
    return changed;
  }

  protected async pass(): Promise<number> {
    const changed = await this.syncApps(await this.apps.findWithNumber());
    if (changed) this.logger.log({ changed }, 'app signals sync applied changes');
    return changed;
  }
}
