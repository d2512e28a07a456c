import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApplyConsentResult, CONSENT_RPC, ConsentChange, isUuid, unixSeconds } from '@app/contracts';
import { RpcClient } from '@app/messaging';
import {
  Clock,
  ForbiddenProblem,
  NotFoundProblem,
  PeriodicJob,
  ProblemError,
  ServiceUnavailableProblem,
  WorkLimit,
} from '@app/server';
import { AuthenticatedAccount } from '../../accounts/authenticated-account';
import { GatewayConfig } from '../../config';
import { ContactsRepository } from '../contacts.repository';
import { ContactImportsRepository, ImportRecord, Rejection } from './contact-imports.repository';
import { batchKeys, parseRows, resolveBatch } from './import-batch';
import { ImportFileError, ImportFormat, ImportRow, readImportRows } from './import-rows';

/** Rows written per transaction (and consent changes per request to the api, at most). */
export const IMPORT_BATCH_ROWS = 1000;
/** Characters of rows one batch holds at most: with IMPORT_BATCH_ROWS, what an import holds at once. */
export const IMPORT_BATCH_CHARS = 1024 * 1024;
/** Rejections shown per page of an import's report. */
const REJECTIONS_PAGE = 1000;
/** An import whose process has not said it holds it for this long belongs to a process that is gone. */
const STALE_SECONDS = 120;
/** A stored upload no import of this database names is removed once it is this old. */
const ORPHAN_FILE_MS = 24 * 3600_000;
/** The file name of a stored upload: the import's id and format. */
const UPLOAD_FILE = /^([0-9a-f-]{36})\.(csv|ndjson)$/;
const CONSENT_RPC_TIMEOUT_MS = 10_000;
const CONSENT_TRIES = 3;

/**
 * An import as the API shows it: its state and counts (`consent_refused`: rows imported whose
 * consent column the consent rules refused, listed among `rejections`), with a page of rejected rows.
 */
export type ImportView = Omit<ImportRecord, 'account_id' | 'created_at' | 'finished_at'> & {
  /** Unix seconds */
  created_at: number;
  /** Unix seconds */
  finished_at: number | null;
  /** Rejected rows in order: the row's number, the field and why. */
  rejections: Rejection[];
  /** Pass as `after_row` for the next page of rejections; null on the last. */
  next_after_row: number | null;
};

export class PayloadTooLargeProblem extends ProblemError {
  constructor(detail: string) {
    super(413, 'payload-too-large', 'Payload too large', detail);
  }
}

/**
 * Bulk imports of contacts (docs/contacts.md#imports). The upload streams to a file on local disk
 * (never the whole file in memory), answered 202 once stored; the file is then read as a stream,
 * a batch of rows per transaction with the import's counts and rejected rows, and deleted.
 */
@Injectable()
export class ContactImportsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ContactImports');
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  /** The imports this process holds (receiving, waiting for a place, being read). */
  private readonly held = new Set<string>();
  /** Imports read at once in this process, and how many may wait for their turn. */
  private readonly line: WorkLimit;
  private readonly sweep: PeriodicJob<void>;

  constructor(
    private readonly imports: ContactImportsRepository,
    private readonly contacts: ContactsRepository,
    private readonly rpc: RpcClient,
    private readonly config: GatewayConfig,
    private readonly clock: Clock,
  ) {
    this.line = new WorkLimit({
      what: 'contact imports',
      atOnce: config.CONTACT_IMPORTS_AT_ONCE,
      waiting: config.CONTACT_IMPORTS_WAITING,
      // An import stored waits for its turn however long the ones ahead take.
      waitMs: 24 * 3600_000,
      perKey: config.CONTACT_IMPORTS_PER_ACCOUNT,
      retryAfterSeconds: 30,
    });
    this.sweep = new PeriodicJob(
      'contact imports sweep',
      config.CONTACT_IMPORTS_SWEEP_MS,
      () => this.sweepNow(),
      this.logger,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.sweepNow();
    this.sweep.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.sweep.stop();
    await Promise.all([...this.running]);
  }

  /**
   * Says this process still holds its imports, fails the imports of processes that are gone (a
   * crash, a kill), and removes stored files whose import has ended: run at start and every
   * CONTACT_IMPORTS_SWEEP_MS, so that nothing stays `processing` or on disk after a crash.
   */
  private async sweepNow(): Promise<void> {
    await this.imports.heartbeat([...this.held]);
    const failed = await this.imports.failStale(STALE_SECONDS);
    if (failed) this.logger.warn({ failed }, 'imports interrupted by a stop marked failed');
    const dir = this.config.CONTACT_IMPORTS_DIR;
    const names = await readdir(dir).catch(() => [] as string[]);
    const files = new Map<string, string>();
    for (const name of names) {
      const m = UPLOAD_FILE.exec(name);
      if (m && !this.held.has(m[1])) files.set(m[1], name);
    }
    if (!files.size) return;
    // Only files whose import this database knows to have ended: a folder shared with a gateway
    // of another database (one machine, several stacks) keeps that gateway's uploads, unless they
    // are older than any import can be.
    const { known, ended } = await this.imports.states([...files.keys()]);
    for (const [id, name] of files) {
      const path = join(dir, name);
      const old = async () => this.clock.nowMs() - (await stat(path)).mtimeMs > ORPHAN_FILE_MS;
      if (ended.has(id) || (!known.has(id) && (await old().catch(() => false))))
        await unlink(path).catch(() => undefined);
    }
  }

  /**
   * Stores the upload, answers once it is stored, and reads it afterwards. A process with as many
   * imports as it may hold, or an account with as many as it may have, is answered 503 before
   * anything is stored.
   */
  async start(
    account: AuthenticatedAccount,
    format: ImportFormat,
    body: Readable,
    declaredBytes?: number,
  ): Promise<ImportView> {
    const max = this.config.CONTACT_IMPORT_MAX_BYTES;
    const tooLarge = () => new PayloadTooLargeProblem(`An import file may be at most ${max} bytes.`);
    if (declaredBytes !== undefined && declaredBytes > max) throw tooLarge();
    // A place in this process's line first (refused at once when it is full), then the account's
    // count across every replica.
    const place = this.line.enter(account.id);
    place.catch(() => undefined);
    const giveUp = () =>
      void place.then(
        (release) => release(),
        () => undefined,
      );
    const record = await this.imports
      .createWithin(account.id, format, this.config.CONTACT_IMPORTS_PER_ACCOUNT)
      .catch((err: unknown) => {
        giveUp();
        throw err;
      });
    if (!record) {
      giveUp();
      throw new ServiceUnavailableProblem(
        `The account has ${this.config.CONTACT_IMPORTS_PER_ACCOUNT} imports under way, the most it may; retry once one has ended.`,
        30,
      );
    }
    this.held.add(record.id);
    const path = join(this.config.CONTACT_IMPORTS_DIR, `${record.id}.${format}`);
    let bytes = 0;
    // Past the limit the rest is read and dropped (nothing more is written), so the client, still
    // sending, gets its 413 rather than a connection cut mid-upload.
    const capped = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done(null, bytes > max ? undefined : chunk);
      },
    });
    const refuse = async (failure: string, problem: ProblemError): Promise<never> => {
      await unlink(path).catch(() => undefined);
      await this.imports.setState(record.id, 'failed', failure);
      this.held.delete(record.id);
      giveUp();
      throw problem;
    };
    try {
      await mkdir(this.config.CONTACT_IMPORTS_DIR, { recursive: true });
      await pipeline(body, capped, createWriteStream(path));
    } catch {
      return refuse(
        'the upload was cut off',
        new ProblemError(400, 'bad-request', 'Upload incomplete', 'The upload was cut off; nothing was imported.'),
      );
    }
    if (bytes > max) return refuse(`the file is larger than ${max} bytes`, tooLarge());
    await this.imports.setState(record.id, 'processing');
    const work = this.process(record.id, account, format, path, place).finally(() => {
      this.running.delete(work);
      this.held.delete(record.id);
    });
    this.running.add(work);
    return this.view(account, record.id, 0);
  }

  /** The import's state and counts, with a page of its rejected rows. */
  async view(account: AuthenticatedAccount, id: string, afterRow: number): Promise<ImportView> {
    const record = isUuid(id) ? await this.imports.find(id.toLowerCase()) : null;
    if (!record) throw new NotFoundProblem('import');
    if (record.account_id !== account.id) throw new ForbiddenProblem('The import belongs to another account.');
    const rejections = await this.imports.rejections(record.id, afterRow, REJECTIONS_PAGE + 1);
    const page = rejections.slice(0, REJECTIONS_PAGE);
    return {
      id: record.id,
      format: record.format,
      state: record.state,
      rows_read: record.rows_read,
      created: record.created,
      updated: record.updated,
      unchanged: record.unchanged,
      rejected: record.rejected,
      consent_refused: record.consent_refused,
      failure: record.failure,
      created_at: unixSeconds(new Date(record.created_at)),
      finished_at: record.finished_at ? unixSeconds(new Date(record.finished_at)) : null,
      rejections: page,
      // A row may have several rejections: the next page starts after the last whole row shown.
      next_after_row: rejections.length > REJECTIONS_PAGE ? lastWholeRow(page, rejections[REJECTIONS_PAGE]) : null,
    };
  }

  /**
   * Waits for its place, then reads the stored file a batch at a time (IMPORT_BATCH_ROWS rows or
   * IMPORT_BATCH_CHARS characters, whichever comes first); any failure ends the import as failed,
   * with why (never a database's own words), the batches before it kept.
   */
  private async process(
    id: string,
    account: AuthenticatedAccount,
    format: ImportFormat,
    path: string,
    place: Promise<() => void>,
  ): Promise<void> {
    const maxRows = this.config.CONTACT_IMPORT_MAX_ROWS;
    let release: (() => void) | undefined;
    let imported = 0;
    try {
      release = await place;
      let batch: ImportRow[] = [];
      let chars = 0;
      for await (const row of readImportRows(path, format)) {
        if (this.stopping) throw new ImportFileError('the gateway stopped; import the file again');
        if (row.row > maxRows)
          throw new ImportFileError(`more than ${maxRows} rows: the rows after ${maxRows} were not read`);
        batch.push(row);
        chars += row.chars ?? 0;
        if (batch.length >= IMPORT_BATCH_ROWS || chars >= IMPORT_BATCH_CHARS) {
          await this.applyBatch(id, account, batch);
          imported = row.row;
          batch = [];
          chars = 0;
        }
      }
      if (batch.length) await this.applyBatch(id, account, batch);
      await this.imports.setState(id, 'completed');
    } catch (err) {
      const reason =
        err instanceof ImportFileError
          ? err.message
          : `the import stopped on an error after row ${imported}: the rows up to it are imported; import the file again (rows already imported stay unchanged)`;
      this.logger.warn({ importId: id, err: String(err) }, 'contact import failed');
      await this.imports.setState(id, 'failed', reason).catch(() => undefined);
    } finally {
      release?.();
      await unlink(path).catch(() => undefined);
    }
  }

  private async applyBatch(id: string, account: AuthenticatedAccount, rows: ImportRow[]): Promise<void> {
    const resolved = await this.contacts.transaction(async (em) => {
      const parsed = parseRows(rows, account.defaultRegion ?? null);
      const existing = await this.contacts.matching(account.id, batchKeys(parsed), em);
      const r = resolveBatch(parsed, existing);
      await this.contacts.writeMany(em, account.id, r.inserts, r.updates);
      await this.imports.recordBatch(em, id, r.counts, r.rejections);
      return r;
    });
    if (!resolved.consent.length) return;
    if (!account.userId) {
      await this.imports.recordConsentRefusals(
        id,
        resolved.consent.map(({ row, external_id, field }) => ({
          row,
          external_id,
          field,
          reason: 'the account is not linked to a user',
        })),
      );
      return;
    }
    const outcomes = await this.applyConsent(
      account.userId,
      resolved.consent.map((c) => c.change),
    );
    await this.imports.recordConsentRefusals(
      id,
      outcomes.flatMap((o, i) => {
        const { row, external_id, field } = resolved.consent[i];
        return o.refused ? [{ row, external_id, field, reason: o.refused }] : [];
      }),
    );
  }

  /** Records the batch's consent changes in the api (a few tries: the contacts are already written). */
  private async applyConsent(userId: string, changes: ConsentChange[]): Promise<ApplyConsentResult['outcomes']> {
    const outcomes: ApplyConsentResult['outcomes'] = [];
    for (let i = 0; i < changes.length; i += IMPORT_BATCH_ROWS) {
      outcomes.push(...(await this.consentCall(userId, changes.slice(i, i + IMPORT_BATCH_ROWS))));
    }
    return outcomes;
  }

  private async consentCall(userId: string, changes: ConsentChange[]): Promise<ApplyConsentResult['outcomes']> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.rpc.call(
          CONSENT_RPC.apply,
          { user_id: userId, changes },
          { timeoutMs: CONSENT_RPC_TIMEOUT_MS, unavailable: 'consent could not be recorded' },
        );
        return result.outcomes;
      } catch (err) {
        if (attempt >= CONSENT_TRIES) throw err;
        await new Promise((r) => setTimeout(r, 1000 * attempt));
      }
    }
  }
}

/** The last row all of whose rejections are on the page (the page ends inside `next`'s row or before it). */
function lastWholeRow(page: Rejection[], next: Rejection): number {
  const whole = page.filter((r) => r.row !== next.row);
  return whole.length ? whole[whole.length - 1].row : next.row - 1;
}
