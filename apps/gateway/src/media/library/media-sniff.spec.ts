import { mediaKindOf, resolveMimeType, sniffMimeType } from './media-sniff';

const head = (bytes: number[] | string) =>
  Buffer.concat([Buffer.from(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes), Buffer.alloc(32)]);

describe('sniffMimeType', () => {
  it('reads the kinds the channels send from their first bytes', () => {
    expect(sniffMimeType(head([0xff, 0xd8, 0xff, 0xe1]))).toBe('image/jpeg');
    expect(sniffMimeType(head('\x89PNG\r\n\x1a\n'))).toBe('image/png');
    expect(sniffMimeType(head('GIF89a'))).toBe('image/gif');
    expect(sniffMimeType(head('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffMimeType(head('\0\0\0\x18ftypisom'))).toBe('video/mp4');
    expect(sniffMimeType(head('\0\0\0\x18ftyp3gp5'))).toBe('video/3gpp');
    expect(sniffMimeType(head('\0\0\0\x18ftypM4A '))).toBe('audio/mp4');
    expect(sniffMimeType(head('OggS'))).toBe('audio/ogg');
    expect(sniffMimeType(head('ID3\x04'))).toBe('audio/mpeg');
    expect(sniffMimeType(head([0xff, 0xfb, 0x90]))).toBe('audio/mpeg');
    expect(sniffMimeType(head([0xff, 0xf1, 0x50]))).toBe('audio/aac');
    expect(sniffMimeType(head('#!AMR\n'))).toBe('audio/amr');
    expect(sniffMimeType(head('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffMimeType(head('PK\x03\x04'))).toBe('application/zip');
    expect(sniffMimeType(head('hello'))).toBeNull();
    expect(sniffMimeType(Buffer.alloc(0))).toBeNull();
  });
});

describe('resolveMimeType', () => {
  it('keeps what the bytes say over a declared type that disagrees', () => {
    expect(resolveMimeType(head('%PDF-1.4'), 'image/png')).toBe('application/pdf');
  });

  it('keeps unknown bytes as a document of the declared type, and refuses them as image, video or audio', () => {
    expect(resolveMimeType(head('hello'), 'text/plain; charset=utf-8')).toBe('text/plain');
    expect(resolveMimeType(head('hello'), null)).toBe('application/octet-stream');
    expect(resolveMimeType(head('hello'), 'not a type')).toBe('application/octet-stream');
    expect(resolveMimeType(head('hello'), 'image/png')).toBeNull();
    expect(resolveMimeType(head('hello'), 'video/mp4')).toBeNull();
  });
});

describe('mediaKindOf', () => {
  it('sends each type as its kind', () => {
    expect(mediaKindOf('image/webp')).toBe('image');
    expect(mediaKindOf('video/3gpp')).toBe('video');
    expect(mediaKindOf('audio/ogg')).toBe('audio');
    expect(mediaKindOf('application/pdf')).toBe('document');
  });
});
