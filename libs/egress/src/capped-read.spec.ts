import { FloodServer, startFloodServer } from '@app/testing';
import { AnswerTooLargeError, cappedFetch } from './capped-read';
import { fetchTarget } from './target-fetch';
import { TargetPolicy } from './target-policy';

const MiB = 1024 * 1024;
/** What sockets and stream buffers may hold beyond what the reader took. */
const SLACK = 16 * MiB;

describe('capped answer reads', () => {
  let flood: FloodServer;
  afterEach(() => flood?.close());

  it('a download stops at the cap while a 400 MiB answer streams, and fails as too large', async () => {
    flood = await startFloodServer(400 * MiB);
    const before = process.memoryUsage().rss;
    const policy = new TargetPolicy({ allowPrivate: true });
    await expect(
      fetchTarget(`${flood.url}/media.mp4`, { policy, maxBytes: 50 * MiB, signal: AbortSignal.timeout(20_000) }),
    ).rejects.toBeInstanceOf(AnswerTooLargeError);
    await flood.ended();
    expect(flood.sent()).toBeLessThan(50 * MiB + SLACK);
    // Never the whole answer in memory (it was 135 MiB -> 572 MiB RSS when read whole).
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * MiB);
  });

  it('a declared Content-Length over the cap is refused before the body is read', async () => {
    flood = await startFloodServer(400 * MiB, { declareLength: true });
    const policy = new TargetPolicy({ allowPrivate: true });
    await expect(
      fetchTarget(flood.url, { policy, maxBytes: MiB, signal: AbortSignal.timeout(20_000) }),
    ).rejects.toBeInstanceOf(AnswerTooLargeError);
    await flood.ended();
    expect(flood.sent()).toBeLessThan(SLACK);
  });

  it('a client library’s fetch fails at the cap instead of buffering a 150 MiB answer', async () => {
    flood = await startFloodServer(150 * MiB);
    const capped = cappedFetch(MiB);
    await expect(capped(flood.url, { signal: AbortSignal.timeout(20_000) })).rejects.toBeInstanceOf(
      AnswerTooLargeError,
    );
    await flood.ended();
    expect(flood.sent()).toBeLessThan(MiB + SLACK);
  });

  it('an answer within the cap comes back whole, a polyfilled signal still aborts', async () => {
    flood = await startFloodServer(1000);
    const res = await cappedFetch(MiB)(flood.url);
    expect(res.status).toBe(200);
    expect((await res.text()).length).toBe(1000);
    const polyfill = { aborted: true, addEventListener: () => undefined } as unknown as AbortSignal;
    await expect(cappedFetch(MiB)(flood.url, { signal: polyfill })).rejects.toThrow(/abort/i);
  });
});
