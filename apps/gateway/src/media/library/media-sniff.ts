import { SendMediaType } from '@app/contracts';

/** Bytes of a file's head the sniffer reads. */
export const SNIFF_BYTES = 64;

const ascii = (head: Buffer, at: number, text: string) =>
  head.length >= at + text.length && head.toString('latin1', at, at + text.length) === text;

/** ISO base media brands (the `ftyp` box) that are audio only. */
const AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ']);

/**
 * The media type a file's first bytes declare (magic numbers), or null when they match none of the
 * kinds the channels send: JPEG, PNG, GIF, WebP; MP4, 3GP, QuickTime; MPEG audio, AAC, Ogg, AMR,
 * M4A; PDF; and the ZIP container of Office documents.
 */
export function sniffMimeType(head: Buffer): string | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (ascii(head, 0, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a')) return 'image/gif';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) return 'image/webp';
  if (ascii(head, 4, 'ftyp')) {
    const brand = head.toString('latin1', 8, 12);
    if (AUDIO_BRANDS.has(brand)) return 'audio/mp4';
    if (brand.startsWith('3g')) return 'video/3gpp';
    if (brand === 'qt  ') return 'video/quicktime';
    return 'video/mp4';
  }
  if (ascii(head, 0, 'OggS')) return 'audio/ogg';
  if (ascii(head, 0, '#!AMR')) return 'audio/amr';
  if (ascii(head, 0, 'ID3')) return 'audio/mpeg';
  // An MPEG audio frame (11 sync bits, layer III) or an ADTS AAC frame (12 sync bits, layer 0).
  if (head.length >= 2 && head[0] === 0xff && (head[1] & 0xf6) === 0xf0) return 'audio/aac';
  if (head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0 && (head[1] & 0x06) !== 0) return 'audio/mpeg';
  if (ascii(head, 0, '%PDF-')) return 'application/pdf';
  if (ascii(head, 0, 'PK\x03\x04')) return 'application/zip';
  return null;
}

/** The content kind a media type is sent as. */
export function mediaKindOf(mimeType: string): SendMediaType {
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType.startsWith('audio/')) return 'audio';
  return 'document';
}

/** A declared media type without parameters, lower-cased; null when there is none or it is not a type. */
export function bareMimeType(declared: string | null | undefined): string | null {
  const bare = (declared ?? '').split(';')[0].trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(bare) ? bare : null;
}

/**
 * The type a file is kept with: what its bytes say, whatever was declared (a declared type that
 * disagrees is corrected). Bytes that match no known kind are a document of the declared type
 * (application/octet-stream when none), unless the declared type is image, video or audio: a
 * channel would refuse such a file, so it is refused here (null).
 */
export function resolveMimeType(head: Buffer, declared: string | null | undefined): string | null {
  const sniffed = sniffMimeType(head);
  if (sniffed) return sniffed;
  const bare = bareMimeType(declared);
  if (!bare || bare === 'application/octet-stream') return 'application/octet-stream';
  return mediaKindOf(bare) === 'document' ? bare : null;
}
