import { jsonArrayStream, nextPageLink } from './json-stream';

async function text(batches: unknown[][]): Promise<string> {
  let out = '';
  for await (const chunk of jsonArrayStream(
    (async function* () {
      for (const b of batches) yield b;
    })(),
  )) {
    out += String(chunk);
  }
  return out;
}

describe('jsonArrayStream', () => {
  it('writes the batches as one JSON array, empty batches included', async () => {
    expect(JSON.parse(await text([[{ a: 1 }, { a: 2 }], [], [{ a: 3 }]]))).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(await text([])).toBe('[]');
    expect(await text([[], []])).toBe('[]');
  });

  it('reads a batch only when the reader wants more', async () => {
    let read = 0;
    const stream = jsonArrayStream(
      (async function* () {
        for (;;) {
          read++;
          yield [{ filler: 'x'.repeat(1000) }];
        }
      })(),
    );
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await new Promise((r) => setTimeout(r, 20));
    // An endless source: only what fills the stream's buffer (16 KiB) was read.
    expect(read).toBeLessThan(40);
    stream.destroy();
  });
});

describe('nextPageLink', () => {
  it('is an RFC 8288 link with the query encoded', () => {
    expect(nextPageLink('/api/v1/x', { start_date: '2025-01-01', cursor: 'a b' })).toBe(
      '</api/v1/x?start_date=2025-01-01&cursor=a+b>; rel="next"',
    );
  });
});
