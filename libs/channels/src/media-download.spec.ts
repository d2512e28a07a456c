import { Readable } from 'node:stream';
import { capBytes, exceededCap, MediaTooLargeError } from './media-download';

const read = async (stream: Readable): Promise<number> => {
  let n = 0;
  for await (const chunk of stream) n += (chunk as Buffer).length;
  return n;
};

describe('capBytes', () => {
  it('passes a file up to the cap through whole', async () => {
    const cap = capBytes(10);
    expect(await read(Readable.from([Buffer.alloc(4), Buffer.alloc(6)]).pipe(cap))).toBe(10);
    expect(exceededCap(cap)).toBe(false);
  });

  it('fails a file past the cap, and says so whatever wraps the error', async () => {
    const cap = capBytes(10);
    await expect(read(Readable.from([Buffer.alloc(6), Buffer.alloc(6)]).pipe(cap))).rejects.toBeInstanceOf(
      MediaTooLargeError,
    );
    expect(exceededCap(cap)).toBe(true);
  });
});
