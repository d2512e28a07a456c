import { request } from 'undici';
import { readCapped } from '@app/egress';
import { MediaUploadResult, MediaUploadSource } from '../channel-connector';
import { multipartStream } from '../multipart-stream';
import { classifyGraphFailure } from './graph-errors';
import { GraphErrorBody } from './graph.types';

/** WhatsApp keeps an uploaded media id 30 days; it is renewed a day early. */
export const WHATSAPP_MEDIA_ID_TTL_S = 29 * 86_400;

/**
 * Uploads a file to a phone number's media (`POST /{phone-number-id}/media`, multipart:
 * messaging_product, type, file) and answers the media id messages then send it by.
 */
export async function uploadWhatsAppMedia(
  config: { baseUrl: string; accessToken: string; timeoutMs: number; nowSeconds: () => number },
  phoneNumberId: string,
  file: MediaUploadSource,
): Promise<MediaUploadResult> {
  const form = multipartStream(
    { messaging_product: 'whatsapp', type: file.mimeType },
    { field: 'file', name: file.fileName ?? `file.${file.type}`, mimeType: file.mimeType, body: file.body },
  );
  const signal = AbortSignal.timeout(config.timeoutMs);
  let status: number;
  let text: string;
  try {
    const res = await request(`${config.baseUrl}/${encodeURIComponent(phoneNumberId)}/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${config.accessToken}`, 'Content-Type': form.contentType },
      body: form.body,
      signal,
    });
    status = res.statusCode;
    text = (await readCapped(res.body, 64 * 1024)).toString('utf8');
  } catch (err) {
    const failure = signal.aborted
      ? ({ kind: 'timeout', timeoutMs: config.timeoutMs } as const)
      : ({ kind: 'network', message: err instanceof Error ? err.message : String(err) } as const);
    return { ok: false, ...classifyGraphFailure(failure), outcomeUnknown: undefined };
  }
  let body: { id?: unknown } & Partial<GraphErrorBody> = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = {};
  }
  if (status >= 200 && status < 300 && typeof body.id === 'string' && body.id)
    return { ok: true, handle: body.id, expiresAt: config.nowSeconds() + WHATSAPP_MEDIA_ID_TTL_S };
  const e = body.error;
  return {
    ok: false,
    ...classifyGraphFailure({
      kind: 'http',
      status,
      ...(typeof e?.code === 'number' ? { code: e.code } : {}),
      message: e?.message || `the media upload answered ${status}`,
    }),
  };
}
