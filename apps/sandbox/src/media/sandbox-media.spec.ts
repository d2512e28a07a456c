import { sandboxMediaChunk } from '@app/contracts';
import { sandboxMediaBytes, SANDBOX_MEDIA_DEFAULT_SIZE, sizeOfHandle, whatsAppMediaObject } from './sandbox-media';

describe('sandbox media', () => {
  it('makes a file of the asked size with the fixed pattern, chunk by chunk', async () => {
    const size = 200_000;
    const chunks: Buffer[] = [];
    for await (const chunk of sandboxMediaBytes(size)) chunks.push(Buffer.from(chunk as Uint8Array));
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks)).toEqual(Buffer.from(sandboxMediaChunk(0, size)));
  });

  it('reads the size a handle names, or the default', () => {
    expect(sizeOfHandle('media.7999.applicationpdf.s16777216')).toBe(16_777_216);
    expect(sizeOfHandle('doc-12-s1024')).toBe(1024);
    expect(sizeOfHandle('photo-12')).toBe(SANDBOX_MEDIA_DEFAULT_SIZE);
  });

  it('answers a WhatsApp media id with its URL on the sandbox, type and size', () => {
    expect(whatsAppMediaObject('media.7999.applicationpdf.s2048', 'http://sb:1')).toMatchObject({
      url: 'http://sb:1/_media/wa.media.7999.applicationpdf.s2048?type=application%2Fpdf',
      mime_type: 'application/pdf',
      file_size: 2048,
    });
  });
});
