import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ObjectStore, Objm } from '@nats-io/obj';
import { ChannelConnector, MediaUploader, SendFailure, SendResult, uploadsMedia } from '@app/channels';
import {
  ClaimMediaHandleResult,
  MEDIA_RPC,
  OBJECT_BUCKETS,
  OutboundContent,
  OutboundMessage,
  Topology,
} from '@app/contracts';
import { NatsClients, RpcClient } from '@app/messaging';

/**
 * How long a send waits for another process's upload of its file before it is retried later (10 s),
 * asking every 100 ms: one send per process asks, the others of that process wait for its answer.
 */
const UPLOAD_WAIT_TRIES = 100;
const UPLOAD_WAIT_STEP_MS = 100;
const RPC_TIMEOUT_MS = 5000;
/** Handles remembered by this process (each a few hundred bytes); the whole map is dropped when full. */
const CACHE_ENTRIES = 10_000;

const MEDIA_KEYS = ['image', 'video', 'audio', 'document'] as const;
type MediaKey = (typeof MEDIA_KEYS)[number];

/** A refusal that says the channel no longer knows a handle: the file is uploaded again, once. */
const STALE_HANDLE =
  /wrong file identifier|wrong remote file|file_id|media id|131053|attachment\.not\.found|invalid.*token|upload/i;

const failure = (retryable: boolean, code: string, title: string, retryAfterMs?: number): SendFailure => ({
  ok: false,
  retryable,
  scope: 'message',
  code,
  title,
  ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
});

/** A connection's handle of a file, and when it expires (Unix seconds; null: never). */
type Handle = { handle: string; expiresAt: number | null };

/** The media library file a work item sends, or null (docs/media.md). */
export function libraryMediaOf(content: OutboundContent): { key: MediaKey; mediaId: string } | null {
  for (const key of MEDIA_KEYS) {
    const media = (content as Partial<Record<MediaKey, { media_id?: string }>>)[key];
    if (media?.media_id !== undefined) return { key, mediaId: media.media_id };
  }
  return null;
}

/**
 * A channel's connector that sends media library files (docs/media.md) by the sender connection's
 * handle: asked of the gateway (MEDIA_RPC) and remembered here; without one, the file is uploaded
 * once from the media store (concurrent first sends: one uploads, the others wait for its handle),
 * and a handle the channel refuses as no longer valid is uploaded again once. Other messages go
 * straight to the channel's connector. A campaign's first sends of a file arrive together: one of
 * them finds the handle (claims it, uploads it or waits for it) and the others of this process
 * wait for that one, rather than each asking the gateway in turn.
 */
export class LibraryMediaConnector implements ChannelConnector {
  private readonly handles = new Map<string, Handle>();
  /** The handle a send of this process is finding, by file and connection; null when it found none. */
  private readonly finding = new Map<string, Promise<Handle | null>>();
  private bucket?: Promise<ObjectStore>;

  constructor(
    private readonly inner: ChannelConnector & MediaUploader,
    private readonly rpc: RpcClient,
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly nowSeconds: () => number,
  ) {}

  /** The connector itself, or this wrapper when the channel uploads media. */
  static wrap(
    connector: ChannelConnector,
    rpc: RpcClient,
    clients: NatsClients,
    topology: Topology,
    nowSeconds: () => number,
  ): ChannelConnector {
    return uploadsMedia(connector)
      ? new LibraryMediaConnector(connector, rpc, clients, topology, nowSeconds)
      : connector;
  }

  get channel() {
    return this.inner.channel;
  }

  get pacing() {
    return this.inner.pacing;
  }

  /** Longest a send without a media library file can take: the channel's own. */
  get sendTimeoutMs(): number {
    return this.inner.sendTimeoutMs;
  }

  /**
   * Longest the send of a media library file can take: waiting for another sender's upload, the
   * claim and keep calls, the upload (bounded by the channel's own timeout) and the send.
   */
  sendTimeoutOf(msg: OutboundMessage): number {
    if (!libraryMediaOf(msg.content)) return this.inner.sendTimeoutMs;
    return 2 * this.inner.sendTimeoutMs + UPLOAD_WAIT_TRIES * UPLOAD_WAIT_STEP_MS + 2 * RPC_TIMEOUT_MS;
  }

  send(msg: OutboundMessage): Promise<SendResult> {
    const media = libraryMediaOf(msg.content);
    return media ? this.sendLibrary(msg, media.key, media.mediaId, null) : this.inner.send(msg);
  }

  private async sendLibrary(
    msg: OutboundMessage,
    key: MediaKey,
    mediaId: string,
    stale: string | null,
  ): Promise<SendResult> {
    const cacheKey = `${mediaId}\n${msg.sender.connection_id}`;
    const cached = this.handles.get(cacheKey);
    let handle =
      !stale && cached && (cached.expiresAt === null || cached.expiresAt > this.nowSeconds()) ? cached.handle : null;
    // Only when another send is finding it: awaiting nothing would let the sends arriving together all ask.
    const shared = handle || stale ? undefined : this.finding.get(cacheKey);
    if (shared) handle = (await shared)?.handle ?? null;
    if (!handle) {
      const pending = this.handleOf(msg, mediaId, stale);
      if (!stale && !this.finding.has(cacheKey)) this.share(cacheKey, pending);
      const got = await pending;
      if ('ok' in got) return got;
      if ('sent' in got) return got.sent;
      handle = got.handle;
      if (this.handles.size >= CACHE_ENTRIES) this.handles.clear();
      this.handles.set(cacheKey, { handle, expiresAt: got.expiresAt });
    }
    const content = msg.content as Record<MediaKey, object>;
    const sent = await this.inner.send({ ...msg, content: { [key]: { ...content[key], handle } } as OutboundContent });
    if (!sent.ok && stale === null && !sent.retryable && STALE_HANDLE.test(`${sent.code} ${sent.title}`)) {
      this.handles.delete(cacheKey);
      return this.sendLibrary(msg, key, mediaId, handle);
    }
    return sent;
  }

  /**
   * Lets the other sends of this file on this connection wait for this one's handle: the one found,
   * or the one its upload sent with (remembered by then); none when it failed, so they ask in turn.
   */
  private share(cacheKey: string, pending: Promise<SendFailure | { sent: SendResult } | Handle>): void {
    const shared = pending.then(
      (got) => ('handle' in got ? got : 'sent' in got ? (this.handles.get(cacheKey) ?? null) : null),
      () => null,
    );
    this.finding.set(cacheKey, shared);
    void shared.then(() => this.finding.delete(cacheKey));
  }

  /** The connection's handle (uploading the file when this send claims it), or why the send cannot go now. */
  private async handleOf(
    msg: OutboundMessage,
    mediaId: string,
    stale: string | null,
  ): Promise<SendFailure | { sent: SendResult } | Handle> {
    const ref = { media_id: mediaId, channel: msg.channel, connection: msg.sender.connection_id };
    for (let tries = 0; ; tries++) {
      let claim: ClaimMediaHandleResult;
      try {
        claim = await this.rpc.call(
          MEDIA_RPC.claim,
          { ...ref, user_id: msg.user_id, stale },
          { timeoutMs: RPC_TIMEOUT_MS },
        );
      } catch {
        return failure(true, 'media_unavailable', 'The media library could not be asked', 5000);
      }
      if ('missing' in claim) return failure(false, 'media_missing', 'The media library file is deleted');
      if ('handle' in claim) return { handle: claim.handle, expiresAt: claim.expires_at };
      if ('upload' in claim) return this.upload(msg, ref, claim.upload);
      if (tries >= UPLOAD_WAIT_TRIES)
        return failure(true, 'media_uploading', 'The media library file is being uploaded', 5000);
      await new Promise((resolve) => setTimeout(resolve, UPLOAD_WAIT_STEP_MS));
    }
  }

  private async upload(
    msg: OutboundMessage,
    ref: { media_id: string; channel: string; connection: string },
    file: Extract<ClaimMediaHandleResult, { upload: unknown }>['upload'],
  ): Promise<SendFailure | { sent: SendResult } | Handle> {
    const release = () =>
      this.rpc
        .call(MEDIA_RPC.keep, { ...ref, handle: null, expires_at: null }, { timeoutMs: RPC_TIMEOUT_MS })
        .catch(() => undefined);
    const stored = await (await this.store()).get(file.object).catch(() => null);
    if (!stored) {
      await release();
      return failure(false, 'media_missing', 'The media library file is not in the media store');
    }
    const body = Readable.fromWeb(stored.data as unknown as WebReadableStream<Uint8Array>);
    const uploaded = await this.inner
      .uploadMedia(msg, { body, type: file.type, mimeType: file.mime_type, size: file.size, fileName: file.file_name })
      .finally(() => body.destroy());
    if (!uploaded.ok) {
      await release();
      return uploaded;
    }
    await this.rpc
      .call(
        MEDIA_RPC.keep,
        { ...ref, handle: uploaded.handle, expires_at: uploaded.expiresAt },
        { timeoutMs: RPC_TIMEOUT_MS },
      )
      .catch(() => undefined);
    if (uploaded.sent) {
      this.handles.set(`${ref.media_id}\n${ref.connection}`, {
        handle: uploaded.handle,
        expiresAt: uploaded.expiresAt,
      });
      return { sent: uploaded.sent };
    }
    return { handle: uploaded.handle, expiresAt: uploaded.expiresAt };
  }

  private store(): Promise<ObjectStore> {
    if (!this.bucket) {
      this.bucket = new Objm(this.clients.js).open(this.topology.objectBucket(OBJECT_BUCKETS.inboundMedia));
      this.bucket.catch(() => (this.bucket = undefined));
    }
    return this.bucket;
  }
}
