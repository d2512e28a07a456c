import { Readable } from 'node:stream';
import { sandboxMediaChunk } from '@app/contracts';

/** The size of an emulated inbound file when the control call names none. */
export const SANDBOX_MEDIA_DEFAULT_SIZE = 4096;

/** The largest emulated inbound file (`media_size`): enough to go past every channel's cap. */
export const SANDBOX_MEDIA_MAX_SIZE = 256 * 1024 * 1024;

const CHUNK = 64 * 1024;

/**
 * An emulated file of `size` bytes, made while it is read (64 KiB at a time, never whole in
 * memory): the sandbox serves every inbound media id, file_id and attachment URL from it.
 */
export function sandboxMediaBytes(size: number): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= size) return void this.push(null);
      const n = Math.min(CHUNK, size - offset);
      const chunk = sandboxMediaChunk(offset, n);
      offset += n;
      this.push(chunk);
    },
  });
}

/** The size a handle names (`...s<bytes>` at its end, put there by `media_size`), or the default. */
export function sizeOfHandle(handle: string): number {
  const m = /[.-]s(\d{1,10})$/.exec(handle);
  return m ? Number(m[1]) : SANDBOX_MEDIA_DEFAULT_SIZE;
}

/** The suffix a handle gets for an inbound with `media_size`. */
export const sizeSuffix = (size: number | undefined, sep: '.' | '-'): string =>
  size === undefined ? '' : `${sep}s${size}`;

/** The MIME types the emulated WhatsApp media ids name (`media.<from>.<mime without punctuation>`). */
const WHATSAPP_MEDIA_TYPES = ['image/jpeg', 'video/mp4', 'audio/mpeg', 'audio/ogg', 'application/pdf', 'image/webp'];

/** What `GET /<version>/<media-id>` answers: the file's URL on the sandbox, its type and size. */
export function whatsAppMediaObject(mediaId: string, base: string) {
  const slug = mediaId.split('.')[2] ?? '';
  const mime = WHATSAPP_MEDIA_TYPES.find((t) => slug.startsWith(t.replace(/\W+/g, ''))) ?? 'application/octet-stream';
  return {
    id: mediaId,
    messaging_product: 'whatsapp',
    url: `${base}/_media/wa.${encodeURIComponent(mediaId)}?type=${encodeURIComponent(mime)}`,
    mime_type: mime,
    sha256: 'sandbox',
    file_size: sizeOfHandle(mediaId),
  };
}
