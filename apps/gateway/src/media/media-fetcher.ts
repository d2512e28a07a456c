import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import {
  exceededCap,
  MediaOpening,
  MediaTooLargeError,
  openMaxAttachment,
  openTelegramFile,
  openWhatsAppMedia,
} from '@app/channels';
import { channelSettings } from '@app/config';
import {
  ConversationMessageCreatedData,
  EventEnvelope,
  isUuid,
  TELEGRAM_CHANNEL,
  Topology,
  WHATSAPP_CHANNEL,
} from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { ConsumerRunner, DEFAULT_TOPOLOGY_OPTIONS, NatsClients, settle, Settlement } from '@app/messaging';
import { CredentialsBox } from '../connections/bot-channels';
import { GatewayConfig } from '../config';
import { mediaCapOf } from './library/media-caps';
import { MediaStore } from './media-store';
import { MediaRepository, MediaSourceRow } from './media.repository';

/**
 * Fetches the file of every inbound conversation message into the media store, after the message
 * is recorded: off its own durable consumer of `conversation.message.created` (`media_gateway`), so
 * a fetch that fails is tried again with back-off and a slow one holds up no other event. The file
 * is streamed from the channel into the store, counted against the channel's cap (`mediaMaxBytes`);
 * past it nothing is kept and the message's media is `too_large`. A repeat fetch writes the same.
 */
@Injectable()
export class MediaFetcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('MediaFetcher');
  private runner?: ConsumerRunner;

  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly config: GatewayConfig,
    private readonly media: MediaRepository,
    private readonly store: MediaStore,
    private readonly credentials: CredentialsBox,
    private readonly targets: TargetPolicy,
  ) {}

  onApplicationBootstrap(): void {
    const t = this.topology;
    const source = {
      stream: t.stream('events'),
      consumer: t.mediaConsumer(),
      maxDeliver: DEFAULT_TOPOLOGY_OPTIONS.eventsMaxDeliver,
    };
    this.runner = new ConsumerRunner(this.clients.nc, this.clients.js, {
      sources: [source],
      handler: async (msg) => {
        const last = msg.meta.deliveryCount >= source.maxDeliver;
        return this.handle(msg.json<EventEnvelope<ConversationMessageCreatedData>>(), last);
      },
      deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
      backoff: { baseMs: 1000, maxMs: 300_000 },
      batch: this.config.MEDIA_FETCHES_AT_ONCE,
      inHandPerSource: this.config.MEDIA_FETCHES_AT_ONCE,
      wakeSubjects: [t.eventSubject('conversation.message.created')],
      onError: (err, context) => this.logger.warn({ err: String(err), ...context }, 'inbound media not fetched yet'),
    });
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }

  /** Fetches the event's file when it is a new inbound message with one; `last`: no retry is left. */
  async handle(event: EventEnvelope<ConversationMessageCreatedData>, last = false): Promise<Settlement> {
    const d = event.data;
    if (event.type !== 'conversation.message.created' || d?.direction !== 'in' || !isUuid(d.id)) return settle.ack();
    const row = await this.media.source(d.id);
    if (!row) return settle.ack();
    const done = await this.media.find(d.id);
    if (done && done.status !== 'failed') return settle.ack();
    const file = { mimeType: row.media!.mime_type, size: row.media!.size, fileName: row.media!.file_name };
    const maxBytes = this.maxBytes(row.channel);
    if (row.media!.size !== null && maxBytes !== null && row.media!.size > maxBytes) {
      await this.media.record(row, 'too_large', file);
      return settle.ack();
    }
    const opened = await this.open(row, maxBytes ?? 0);
    if (!opened.ok) {
      if (opened.tooLarge) {
        await this.media.record(row, 'too_large', { ...file, size: opened.size ?? file.size });
        return settle.ack();
      }
      if (opened.retry && !last) return settle.retry(opened.reason);
      await this.media.record(row, 'failed', { ...file, reason: opened.reason });
      return settle.ack();
    }
    try {
      const stored = await this.store.put(row.message_id, opened.body);
      await this.media.record(row, 'stored', {
        ...file,
        mimeType: opened.mimeType ?? file.mimeType,
        size: stored.size,
      });
      return settle.ack();
    } catch (err) {
      if (err instanceof MediaTooLargeError || exceededCap(opened.body)) {
        await this.media.record(row, 'too_large', file);
        return settle.ack();
      }
      throw err;
    }
  }

  /** The channel's cap on a kept file, or null for a channel whose files are not fetched. */
  private maxBytes(channel: string): number | null {
    return mediaCapOf(this.config, channel);
  }

  private open(row: MediaSourceRow, maxBytes: number): Promise<MediaOpening> {
    const opts = { maxBytes, signal: AbortSignal.timeout(this.config.MEDIA_FETCH_TIMEOUT_MS) };
    const handle = row.media!.handle;
    if (row.channel === 'whatsapp')
      return openWhatsAppMedia(channelSettings(this.config, WHATSAPP_CHANNEL), handle, opts);
    if (row.channel === 'telegram' && row.credential) {
      const { apiUrl } = channelSettings(this.config, TELEGRAM_CHANNEL);
      return openTelegramFile(apiUrl, this.credentials.box.open(row.credential), handle, opts);
    }
    if (row.channel === 'max') return openMaxAttachment(handle, this.targets, opts);
    return Promise.resolve({ ok: false, tooLarge: false, retry: false, reason: 'the channel keeps no files' });
  }
}
