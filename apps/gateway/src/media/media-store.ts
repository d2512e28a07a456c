import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Injectable } from '@nestjs/common';
import { ObjectStore, Objm } from '@nats-io/obj';
import { OBJECT_BUCKETS, Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';

/** Chunks of a stored file: large enough to move 16 MB in few messages, below NATS's 1 MiB payload limit. */
const CHUNK_BYTES = 512 * 1024;

/** What the store knows of a kept file. */
export interface StoredMediaInfo {
  size: number;
}

/**
 * Where inbound files are kept, shared by every gateway replica: put from a stream, read back as a
 * stream, never whole in memory. The JetStream object store is the one in the stack; an
 * S3-compatible bucket fits behind the same four calls.
 */
export abstract class MediaStore {
  /** Keeps the stream's bytes under `name` (replacing what was there); fails, keeping nothing, when the stream fails. */
  abstract put(name: string, body: Readable): Promise<StoredMediaInfo>;
  /** The file's bytes, or null when there is none. */
  abstract get(name: string): Promise<{ info: StoredMediaInfo; body: Readable } | null>;
  /** The file's size, or null when there is none. */
  abstract stat(name: string): Promise<StoredMediaInfo | null>;
  /** Removes the file; nothing when there is none. */
  abstract delete(name: string): Promise<void>;
}

/** The media store on JetStream's object store: the `inbound_media` bucket `pnpm nats:setup` creates. */
@Injectable()
export class ObjectMediaStore extends MediaStore {
  private bucket?: Promise<ObjectStore>;

  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
  ) {
    super();
  }

  private store(): Promise<ObjectStore> {
    if (!this.bucket) {
      const name = this.topology.objectBucket(OBJECT_BUCKETS.inboundMedia);
      this.bucket = new Objm(this.clients.js).open(name);
      this.bucket.catch(() => (this.bucket = undefined));
    }
    return this.bucket;
  }

  async put(name: string, body: Readable): Promise<StoredMediaInfo> {
    const store = await this.store();
    const web = Readable.toWeb(body) as unknown as ReadableStream<Uint8Array>;
    try {
      const info = await store.put({ name, options: { max_chunk_size: CHUNK_BYTES } }, web);
      return { size: info.size };
    } catch (err) {
      body.destroy();
      // A put that failed part-way may have left chunks: nothing of the file is kept.
      await store.delete(name).catch(() => undefined);
      throw err;
    }
  }

  async get(name: string): Promise<{ info: StoredMediaInfo; body: Readable } | null> {
    const result = await (await this.store()).get(name);
    if (!result) return null;
    const body = Readable.fromWeb(result.data as unknown as WebReadableStream<Uint8Array>);
    return { info: { size: result.info.size }, body };
  }

  async stat(name: string): Promise<StoredMediaInfo | null> {
    const info = await (await this.store()).info(name);
    return info && !info.deleted ? { size: info.size } : null;
  }

  async delete(name: string): Promise<void> {
    const store = await this.store();
    if (await this.stat(name)) await store.delete(name);
  }
}
