import { Readable, Transform } from 'node:stream';
import { request } from 'undici';
import { TargetPolicy } from '@app/egress';

/** A file counted past its channel's cap while it was read: nothing of it is kept. */
export class MediaTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the file is larger than ${limitBytes} bytes`);
    this.name = 'MediaTooLargeError';
  }
}

/**
 * What asking a channel for an inbound file came to: its bytes as a stream (never whole in memory),
 * a file the channel says is past the cap, or a failure (`retry`: worth asking again later).
 */
export type MediaOpening =
  | { ok: true; body: Readable; size: number | null; mimeType: string | null }
  | { ok: false; tooLarge: true; size: number | null }
  | { ok: false; tooLarge: false; retry: boolean; reason: string };

export interface MediaFetchOptions {
  /** The channel's cap: a declared or counted size past it is `tooLarge`. */
  maxBytes: number;
  /** Ends the whole download (metadata call and bytes). */
  signal: AbortSignal;
}

/** The WhatsApp Cloud API settings a media download needs (the gateway's BSP token). */
export interface WhatsAppMediaConfig {
  graphUrl: string;
  apiVersion: string;
  accessToken: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Drops an answer's body unread (destroying it emits an error nobody else listens for). */
function discard(body: { on(event: 'error', fn: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

const failed = (reason: string, retry: boolean): MediaOpening => ({ ok: false, tooLarge: false, retry, reason });

/** A channel's answer status as a failure: 4xx other than 408/429 will not change by asking again. */
const failedStatus = (what: string, status: number): MediaOpening =>
  failed(`${what} answered ${status}`, status >= 500 || status === 408 || status === 429);

/** The streams that went past their cap (whatever error a consumer of the stream wrapped it in). */
const overCap = new WeakSet<object>();

/** Whether a stream of capBytes went past its cap. */
export const exceededCap = (stream: object): boolean => overCap.has(stream);

/** Passes the bytes through, counting them; past the cap the stream fails with MediaTooLargeError. */
export function capBytes(maxBytes: number): Transform {
  let total = 0;
  const t: Transform = new Transform({
    transform(chunk: Buffer, _enc, done) {
      total += chunk.length;
      if (total > maxBytes) {
        overCap.add(t);
        return done(new MediaTooLargeError(maxBytes));
      }
      done(null, chunk);
    },
  });
  return t;
}

/**
 * GETs a file as a stream: each hop checked by the egress policy when one is given, redirects
 * followed (3 at most), a declared Content-Length over the cap refused before a byte is read.
 */
async function openUrl(
  raw: string,
  headers: Record<string, string>,
  opts: MediaFetchOptions,
  policy?: TargetPolicy,
): Promise<MediaOpening> {
  let current = raw;
  for (let hop = 0; hop <= 3; hop++) {
    let url: URL;
    if (policy) {
      const check = await policy.check(current);
      if (!check.ok) return failed(`the file URL was ${check.reason}`, false);
      url = check.url;
    } else {
      try {
        url = new URL(current);
      } catch {
        return failed('the file URL is not a URL', false);
      }
    }
    const dispatcher = policy?.dispatcher();
    const res = await request(url, {
      method: 'GET',
      headers,
      signal: opts.signal,
      ...(dispatcher ? { dispatcher } : {}),
    });
    const header = (name: string): string | null => {
      const v = res.headers[name];
      return v === undefined ? null : Array.isArray(v) ? v[0] : v;
    };
    if (REDIRECTS.has(res.statusCode) && header('location')) {
      discard(res.body);
      current = new URL(header('location')!, url).toString();
      continue;
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      discard(res.body);
      return failedStatus('the file URL', res.statusCode);
    }
    const declared = Number(header('content-length'));
    if (Number.isFinite(declared) && declared > opts.maxBytes) {
      discard(res.body);
      return { ok: false, tooLarge: true, size: declared };
    }
    const body = res.body.pipe(capBytes(opts.maxBytes));
    res.body.on('error', (err) => body.destroy(err));
    return {
      ok: true,
      body,
      size: Number.isFinite(declared) && header('content-length') !== null ? declared : null,
      mimeType: header('content-type'),
    };
  }
  return failed('the file URL redirected too often', false);
}

/** A JSON answer of a channel's API, or the failure to report. */
async function getJson<T>(
  url: string,
  headers: Record<string, string>,
  opts: MediaFetchOptions,
): Promise<{ ok: true; body: T } | { ok: false; opening: MediaOpening }> {
  const res = await request(url, { method: 'GET', headers, signal: opts.signal });
  const text = await res.body.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const description = (body as { description?: unknown } | null)?.description;
    if (typeof description === 'string' && /too big/i.test(description))
      return { ok: false, opening: { ok: false, tooLarge: true, size: null } };
    return { ok: false, opening: failedStatus('the channel', res.statusCode) };
  }
  return { ok: true, body: body as T };
}

/** Wraps a call so a network failure or timeout is a failure to retry, not a throw. */
async function guarded(fn: () => Promise<MediaOpening>): Promise<MediaOpening> {
  try {
    return await fn();
  } catch (err) {
    const name = (err as { name?: unknown })?.name;
    return failed(name === 'TimeoutError' || name === 'AbortError' ? 'timed out' : 'could not be reached', true);
  }
}

/**
 * A WhatsApp media id's file: `GET /<version>/<media-id>` for its URL and size, then the URL, both
 * with the access token (the Cloud API's media download; the URL lives 5 minutes).
 */
export function openWhatsAppMedia(
  config: WhatsAppMediaConfig,
  mediaId: string,
  opts: MediaFetchOptions,
): Promise<MediaOpening> {
  return guarded(async () => {
    const auth = { authorization: `Bearer ${config.accessToken}` };
    const base = config.graphUrl.replace(/\/+$/, '');
    const meta = await getJson<{ url?: unknown; mime_type?: unknown; file_size?: unknown }>(
      `${base}/${config.apiVersion}/${encodeURIComponent(mediaId)}`,
      auth,
      opts,
    );
    if (!meta.ok) return meta.opening;
    const size = Number(meta.body.file_size);
    if (Number.isFinite(size) && size > opts.maxBytes) return { ok: false, tooLarge: true, size };
    if (typeof meta.body.url !== 'string') return failed('the media id has no URL', false);
    const opened = await openUrl(meta.body.url, auth, opts);
    if (opened.ok && typeof meta.body.mime_type === 'string') opened.mimeType = meta.body.mime_type;
    return opened;
  });
}

/** A Telegram file_id's file: `getFile` for its path, then `<api>/file/bot<token>/<path>` (20 MB at most). */
export function openTelegramFile(
  apiUrl: string,
  token: string,
  fileId: string,
  opts: MediaFetchOptions,
): Promise<MediaOpening> {
  return guarded(async () => {
    const base = apiUrl.replace(/\/+$/, '');
    const file = await getJson<{ ok?: boolean; result?: { file_path?: unknown; file_size?: unknown } }>(
      `${base}/bot${token}/getFile?file_id=${encodeURIComponent(fileId)}`,
      {},
      opts,
    );
    if (!file.ok) return file.opening;
    const size = Number(file.body.result?.file_size);
    if (Number.isFinite(size) && size > opts.maxBytes) return { ok: false, tooLarge: true, size };
    const path = file.body.result?.file_path;
    if (typeof path !== 'string' || !path) return failed('the file has no path', false);
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    return openUrl(`${base}/file/bot${token}/${encoded}`, {}, opts);
  });
}

/** A MAX attachment's file: its URL, through the egress policy (MAX hands out its CDN's URLs). */
export function openMaxAttachment(url: string, policy: TargetPolicy, opts: MediaFetchOptions): Promise<MediaOpening> {
  return openPublicFile(url, policy, opts);
}

/** A file at a URL a tenant gave, through the egress policy (a media library upload by URL). */
export function openPublicFile(url: string, policy: TargetPolicy, opts: MediaFetchOptions): Promise<MediaOpening> {
  return guarded(() => openUrl(url, {}, opts, policy));
}
