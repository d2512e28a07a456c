import type { Client } from 'openapi-fetch';
import { openAsBlob } from 'node:fs';
import { extname } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { components, operations, paths } from './generated/gateway';
import { CursorPage, paginate } from './pages';
import { RetryOptions, sendWithRetries } from './retry';
import { MessagingError, Problem, unwrap, waitUntil, WaitOptions } from './shared';

export type Contact = components['schemas']['ContactDto'];
export type ContactBody = components['schemas']['ContactBodyDto'];
export type ContactImport = components['schemas']['ContactImportDto'];
export type ImportRejection = components['schemas']['ImportRejectionDto'];
export type ContactQuery = Omit<NonNullable<operations['Contacts_list']['parameters']['query']>, 'cursor'>;

/** The two formats of an import file (docs/contacts.md#imports). */
export type ImportFormat = 'csv' | 'ndjson';

export interface ImportOptions {
  /** The file's format; a file named `*.csv`, `*.ndjson` or `*.jsonl` needs none. */
  format?: ImportFormat;
}

/** What an import can be read from: a Node stream, a web stream, or any iterable of bytes. */
export type ImportStream = Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

/** The Content-Type the gateway reads each format by. */
export const IMPORT_CONTENT_TYPES: Record<ImportFormat, string> = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
};

const FORMAT_OF_EXTENSION: Record<string, ImportFormat> = { '.csv': 'csv', '.ndjson': 'ndjson', '.jsonl': 'ndjson' };

/** The format a file's name says, or the one given; throws when neither says. */
export function importFormatOf(file: string, format?: ImportFormat): ImportFormat {
  const found = format ?? FORMAT_OF_EXTENSION[extname(file).toLowerCase()];
  if (!found) throw new TypeError(`${file}: pass { format: 'csv' } or { format: 'ndjson' } (its name says neither)`);
  return found;
}

/** The connection to the gateway an upload needs beyond the typed client: it sends its own request. */
export interface UploadTarget {
  baseUrl: string;
  token: string;
  retry?: RetryOptions;
  fetch?: (input: Request) => Promise<Response>;
}

async function problemOf(response: Response): Promise<Problem | undefined> {
  if (!(response.headers.get('content-type') ?? '').includes('json')) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  return (await response.json().catch(() => undefined)) as Problem | undefined;
}

/**
 * `POST /v1/contacts/imports` with `body` as it is: a file Blob (read from disk as it is sent, so it
 * may be retried: each try reads it again) or a stream (sent once: it cannot be read twice). Not
 * through the typed client, whose retries would copy the body, holding a whole file in memory.
 */
async function upload(
  target: UploadTarget,
  format: ImportFormat,
  body: () => Blob | ReadableStream<Uint8Array>,
  retry: RetryOptions | undefined,
): Promise<ContactImport> {
  const url = `${target.baseUrl.replace(/\/+$/, '')}/v1/contacts/imports`;
  const response = await sendWithRetries(
    () =>
      new Request(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${target.token}`, 'Content-Type': IMPORT_CONTENT_TYPES[format] },
        body: body(),
        // Required by fetch for a streamed request body; a Blob ignores it.
        duplex: 'half',
      }),
    retry,
    { fetch: target.fetch },
    // The gateway refuses an import it has no room for (503) before storing anything: safe to send again.
    (_, status) => status === 429 || status === 503,
  );
  if (response.status !== 202) throw new MessagingError(response.status, await problemOf(response));
  return (await response.json()) as ContactImport;
}

/** A web stream of bytes pulled from `stream` as the upload reads it (text chunks as UTF-8). */
function webStreamOf(stream: ImportStream): ReadableStream<Uint8Array> {
  if (stream instanceof ReadableStream) return stream;
  const chunks = (stream as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === 'string' ? Buffer.from(value, 'utf8') : value);
    },
    async cancel(reason) {
      await chunks.return?.(reason);
    },
  });
}

const isFinalImport = (i: ContactImport) => i.state === 'completed' || i.state === 'failed';

/**
 * The gateway's contacts: create, read and list them, and import a CSV or NDJSON file of any size,
 * streamed (never held in memory), then wait for its report.
 */
export function contactsClient(http: Client<paths>, target: UploadTarget) {
  const getImport = async (id: string): Promise<ContactImport> =>
    unwrap(await http.GET('/v1/contacts/imports/{id}', { params: { path: { id } } }));
  return {
    /** `POST /v1/contacts`: a new contact. */
    async create(contact: ContactBody): Promise<Contact> {
      return unwrap(await http.POST('/v1/contacts', { body: contact }));
    },
    /** `GET /v1/contacts/{ref}`: by id or `ext:<external id>`. */
    async get(ref: string): Promise<Contact> {
      return unwrap(await http.GET('/v1/contacts/{ref}', { params: { path: { ref } } }));
    },
    /** Every contact matching `query`, in creation order, a page at a time. */
    list(query: ContactQuery = {}): AsyncGenerator<Contact> {
      // The operation also answers text/csv (with Accept: text/csv); this asks for JSON pages.
      return paginate(
        async (cursor) =>
          unwrap(await http.GET('/v1/contacts', { params: { query: { ...query, cursor } } })) as CursorPage<Contact>,
      );
    },
    /**
     * Uploads a file (a path or a `file:` URL) as an import: read from disk as it is sent, with the
     * Content-Type of its format (`options.format`, else its extension). A 429, or a 503 when the
     * gateway has too many imports at once, is retried as every request is: each try reads the file
     * again. Resolves with the import (`processing`) once the gateway has stored the file.
     */
    async importFile(file: string | URL, options: ImportOptions = {}): Promise<ContactImport> {
      const path = file instanceof URL ? fileURLToPath(file) : file;
      const format = importFormatOf(path, options.format);
      // Opened once, to fail early on a missing file; each try streams it anew.
      const blob = await openAsBlob(path);
      return upload(target, format, () => blob, target.retry);
    },
    /**
     * Uploads a stream as an import, as it is read (never held in memory). A stream can be read only
     * once, so it is never retried: a refusal (429, or 503 with Retry-After when the gateway has too
     * many imports at once) throws a MessagingError.
     */
    async importStream(stream: ImportStream, options: Required<ImportOptions>): Promise<ContactImport> {
      if (!IMPORT_CONTENT_TYPES[options.format]) throw new TypeError(`unknown import format ${options.format}`);
      const body = webStreamOf(stream);
      return upload(target, options.format, () => body, { attempts: 1 });
    },
    /** `GET /v1/contacts/imports/{id}`: the import's state, counts and its first rejected rows. */
    /** `GET /v1/contacts/imports/{id}`: the import's state, counts and its first rejected rows. */
    getImport,
    /** Reads the import until it has ended (`completed` or `failed`): its report. */
    waitForImport(id: string, wait: WaitOptions = {}): Promise<ContactImport> {
      return waitUntil(() => getImport(id), isFinalImport, `import ${id}`, wait);
    },
    /** Every rejected row of the import (row number, field, reason), a page at a time. */
    async *rejections(id: string): AsyncGenerator<ImportRejection> {
      let afterRow: string | undefined;
      for (;;) {
        const page = unwrap(
          await http.GET('/v1/contacts/imports/{id}', { params: { path: { id }, query: { after_row: afterRow } } }),
        );
        yield* page.rejections;
        if (page.next_after_row === null || page.rejections.length === 0) return;
        afterRow = String(page.next_after_row);
      }
    },
  };
}

export type ContactsClient = ReturnType<typeof contactsClient>;
