import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { MediaTooLargeError, openPublicFile } from '@app/channels';
import { CAMPAIGNS_RPC, CampaignState, CampaignView, isUuid, SendContent, unixSeconds } from '@app/contracts';
import { RpcCallOptions, RpcClient, RpcProblemError } from '@app/messaging';
import { TargetPolicy } from '@app/egress';
import { NotFoundProblem, ProblemError, UnprocessableProblem, ValidationProblem, WorkLimit } from '@app/server';
import { AuthenticatedAccount } from '../../accounts/authenticated-account';
import { PayloadTooLargeProblem } from '../../contacts/imports/contact-imports.service';
import { GatewayConfig } from '../../config';
import { MediaStore } from '../media-store';
import { largestMediaCap, mediaCapOf } from './media-caps';
import { campaignMediaIds } from './campaign-media-ids';
import { LibraryMediaRow, MediaLibraryRepository } from './media-library.repository';
import { mediaKindOf, resolveMimeType, SNIFF_BYTES } from './media-sniff';

/** A file of the media library as answers show it. */
export interface LibraryMediaView {
  id: string;
  type: LibraryMediaRow['type'];
  mime_type: string;
  size: number;
  sha256: string;
  file_name: string | null;
  /** Unix seconds */
  created_at: number;
}

/** Where an upload's bytes come from: the request's file part, or a URL the gateway fetches. */
export type MediaSource =
  | { kind: 'upload'; body: Readable; declaredType: string | null; fileName: string | null }
  | { kind: 'url'; url: string; fileName: string | null };

/** The name of a library file in the media store: under its account, apart from inbound files. */
export const libraryObjectName = (accountId: string, id: string): string => `library.${accountId}.${id}`;

/** Uploads one process takes in line beyond those it runs; an account's at once in one process. */
const UPLOADS_WAITING = 16;
const UPLOADS_PER_ACCOUNT = 4;
const UPLOAD_WAIT_MS = 30_000;
/** The states of a campaign that sends nothing more. */
const CAMPAIGN_OVER = new Set<CampaignState>(['completed', 'cancelled']);
const CAMPAIGN_READ: RpcCallOptions = {
  timeoutMs: 5_000,
  unavailable: 'The campaigns sending the file cannot be read right now; nothing was deleted: retry later.',
};

/** Bytes whose type the declared type of image, video or audio contradicts. */
class MediaTypeRefusedError extends Error {}

export class MediaTypeProblem extends UnprocessableProblem {
  constructor(field: string, declared: string | null) {
    super(
      'media-type-refused',
      'Media type not recognised',
      `The file's bytes are not a known ${declared ?? 'media'} format; a channel would refuse it.`,
      { errors: [{ field, message: `${field} is not a known image, video or audio format` }] },
    );
  }
}

/**
 * The media library (docs/media.md): a file uploaded (streamed, never whole in memory) or fetched
 * from a URL through the egress policy into the media store, its type read from its bytes, its
 * size counted against the largest channel cap, its SHA-256 computed on the way; listed a page at
 * a time and deleted with its channel handles. Uploads take places of a per-process line
 * (MEDIA_UPLOADS_AT_ONCE), past which they are refused with 503 and Retry-After.
 */
@Injectable()
export class MediaLibraryService {
  private readonly line: WorkLimit;

  constructor(
    private readonly library: MediaLibraryRepository,
    private readonly store: MediaStore,
    private readonly config: GatewayConfig,
    private readonly targets: TargetPolicy,
    private readonly rpc: RpcClient,
  ) {
    this.line = new WorkLimit({
      what: 'media uploads',
      atOnce: config.MEDIA_UPLOADS_AT_ONCE,
      waiting: UPLOADS_WAITING,
      waitMs: UPLOAD_WAIT_MS,
      perKey: UPLOADS_PER_ACCOUNT,
      retryAfterSeconds: 5,
    });
  }

  /** The largest file the library keeps: the largest channel cap. */
  get maxBytes(): number {
    return largestMediaCap(this.config);
  }

  /** Keeps the file and answers it; a refused file leaves nothing behind. */
  async create(account: AuthenticatedAccount, source: MediaSource): Promise<LibraryMediaView> {
    const release = await this.line.enter(account.id);
    try {
      return await this.keep(account, source);
    } finally {
      release();
    }
  }

  private async keep(account: AuthenticatedAccount, source: MediaSource): Promise<LibraryMediaView> {
    const max = this.maxBytes;
    const field = source.kind === 'url' ? 'url' : 'file';
    const opened = source.kind === 'url' ? await this.fetch(source.url, max) : source;
    const id = uuidv7();
    const name = libraryObjectName(account.id, id);
    const inspect = inspection(max, opened.declaredType);
    opened.body.on('error', (err) => inspect.stream.destroy(err));
    try {
      await this.store.put(name, opened.body.pipe(inspect.stream));
    } catch (err) {
      // The rest of a refused upload is read and dropped (its part is cut at the cap), so the
      // client still sending gets its answer rather than a connection cut mid-upload.
      opened.body.unpipe();
      opened.body.resume();
      if (inspect.tooLarge()) {
        if (source.kind === 'url')
          throw new UnprocessableProblem('media-too-large', 'File too large', `The file is larger than ${max} bytes.`, {
            errors: [{ field, message: `the file at url is larger than ${max} bytes` }],
          });
        throw new PayloadTooLargeProblem(`A media file may be at most ${max} bytes.`);
      }
      if (inspect.refused()) throw new MediaTypeProblem(field, opened.declaredType);
      if (err instanceof ProblemError) throw err;
      throw new ProblemError(400, 'bad-request', 'Upload incomplete', 'The file was cut off; nothing was kept.');
    }
    const facts = inspect.facts();
    if (facts.size === 0) {
      await this.store.delete(name);
      throw new ValidationProblem([{ field, message: `${field} is empty` }]);
    }
    try {
      const row = await this.library.insert({
        id,
        account_id: account.id,
        type: mediaKindOf(facts.mimeType),
        mime_type: facts.mimeType,
        size: String(facts.size),
        sha256: facts.sha256,
        file_name: source.fileName,
      });
      return libraryView(row);
    } catch (err) {
      await this.store.delete(name).catch(() => undefined);
      throw err;
    }
  }

  /** Opens a URL through the egress policy, within the cap; its failures are 422 naming `url`. */
  private async fetch(url: string, max: number): Promise<{ body: Readable; declaredType: string | null }> {
    const signal = AbortSignal.timeout(this.config.MEDIA_FETCH_TIMEOUT_MS);
    const opened = await openPublicFile(url, this.targets, { maxBytes: max, signal });
    const refuse = (slug: string, title: string, message: string) =>
      new UnprocessableProblem(slug, title, `The file at url ${message}.`, {
        errors: [{ field: 'url', message: `url ${message}` }],
      });
    if (opened.ok) return { body: opened.body, declaredType: opened.mimeType };
    if (opened.tooLarge) throw refuse('media-too-large', 'File too large', `is larger than ${max} bytes`);
    throw refuse('media-fetch-failed', 'File not fetched', `could not be fetched (${opened.reason})`);
  }

  async list(
    account: AuthenticatedAccount,
    cursor: string | null,
    limit: number,
  ): Promise<{ data: LibraryMediaView[]; next_cursor: string | null }> {
    const rows = await this.library.page(account.id, cursor, limit + 1);
    const data = rows.slice(0, limit);
    return { data: data.map(libraryView), next_cursor: rows.length > limit ? data[data.length - 1].id : null };
  }

  /** The account's file; another account's or an unknown id is 404. */
  async get(account: AuthenticatedAccount, id: string): Promise<LibraryMediaRow> {
    const row = isUuid(id) ? await this.library.find(account.id, id.toLowerCase()) : null;
    if (!row) throw new NotFoundProblem('media');
    return row;
  }

  /**
   * Checks a content's `media_id` before a send is accepted: the account's file, of the content's
   * type, within the cap of every channel it may go on; otherwise 422 naming `content.media_id` (or
   * `where.field`, the detail saying `where.subject`: a campaign's variant, a bot template).
   */
  async checkContent(
    account: AuthenticatedAccount,
    content: SendContent,
    channels: string[],
    where: { field: string; subject: string } = { field: 'content.media_id', subject: 'content.media_id' },
  ): Promise<void> {
    const mediaId = (content as { media_id?: string }).media_id;
    if (mediaId === undefined) return;
    const refuse = (reason: string) => new MediaUnusableProblem(where.field, `${where.subject} ${reason}`);
    const row = isUuid(mediaId) ? await this.library.find(account.id, mediaId.toLowerCase()) : null;
    if (!row) throw refuse("is not a file of the account's media library");
    if (row.type !== content.type) throw refuse(`is a ${row.type} file: send it with type ${row.type}`);
    for (const channel of new Set(channels)) {
      const cap = mediaCapOf(this.config, channel);
      if (cap !== null && Number(row.size) > cap) throw refuse(`is larger than ${channel}'s ${cap} bytes`);
    }
  }

  /**
   * Removes the file, its handles and its bytes; messages already queued with it may fail. A file a
   * campaign not yet over sends (a draft, scheduled, running or paused one) is kept: 409 naming it.
   */
  async delete(account: AuthenticatedAccount, id: string): Promise<void> {
    const row = await this.get(account, id);
    const campaign = await this.liveCampaignSending(account, row.id);
    if (campaign) throw new MediaInUseProblem(campaign);
    if (!(await this.library.delete(account.id, row.id))) throw new NotFoundProblem('media');
    await this.store.delete(libraryObjectName(account.id, row.id));
  }

  /**
   * The first campaign remembered as sending the file that still will: not over and its definition
   * still naming the file. A campaign found over, changed or deleted is forgotten on the way.
   */
  private async liveCampaignSending(account: AuthenticatedAccount, mediaId: string): Promise<CampaignView | null> {
    for (const campaignId of await this.library.campaignsUsing(mediaId)) {
      const campaign = await this.rpc
        .call(CAMPAIGNS_RPC.get, { account_id: account.id, id: campaignId }, CAMPAIGN_READ)
        .catch((err: unknown) => {
          if (err instanceof RpcProblemError && [403, 404].includes(err.problem.status)) return null;
          throw err;
        });
      if (campaign && !CAMPAIGN_OVER.has(campaign.state) && campaignMediaIds(campaign).includes(mediaId))
        return campaign;
      await this.library.forgetCampaignUse(mediaId, campaignId);
    }
    return null;
  }
}

/** A send's media library file that is not there to send: 422 naming `content.media_id`, before anything is held. */
export class MediaUnusableProblem extends UnprocessableProblem {
  constructor(field: string, detail: string) {
    super('media-unusable', 'Media not usable', detail, { errors: [{ field, message: detail }] });
  }
}

/** A file a campaign not yet over still sends: 409 naming the campaign. */
export class MediaInUseProblem extends ProblemError {
  constructor(campaign: Pick<CampaignView, 'id' | 'name' | 'state'>) {
    super(
      409,
      'media-in-use',
      'Media in use',
      `The file is sent by the ${campaign.state} campaign "${campaign.name}" (${campaign.id}): change or delete the draft, or cancel the campaign, first.`,
      { campaign_id: campaign.id, campaign_state: campaign.state },
    );
  }
}

export function libraryView(row: LibraryMediaRow): LibraryMediaView {
  return {
    id: row.id,
    type: row.type,
    mime_type: row.mime_type,
    size: Number(row.size),
    sha256: row.sha256,
    file_name: row.file_name,
    created_at: unixSeconds(new Date(row.created_at)),
  };
}

/**
 * Passes a file's bytes through: counts them (past `max` it fails, MediaTooLargeError), hashes
 * them, and reads the type from the first SNIFF_BYTES (a type the declared one cannot be fails it).
 */
function inspection(max: number, declared: string | null) {
  const hash = createHash('sha256');
  let size = 0;
  let head = Buffer.alloc(0);
  let mimeType: string | null = null;
  let tooLarge = false;
  let refused = false;
  const decide = (): Error | null => {
    if (mimeType) return null;
    mimeType = resolveMimeType(head, declared);
    if (mimeType) return null;
    refused = true;
    return new MediaTypeRefusedError();
  };
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > max) {
        tooLarge = true;
        return done(new MediaTooLargeError(max));
      }
      hash.update(chunk);
      if (!mimeType && head.length < SNIFF_BYTES) head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES)]);
      done(head.length >= SNIFF_BYTES ? decide() : null, chunk);
    },
    flush(done) {
      done(decide());
    },
  });
  return {
    stream,
    tooLarge: () => tooLarge,
    refused: () => refused,
    facts: () => ({ size, sha256: hash.digest('hex'), mimeType: mimeType! }),
  };
}
