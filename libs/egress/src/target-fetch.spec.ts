import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchTarget, TargetRefusedError } from './target-fetch';
import { TargetCheck, TargetPolicy } from './target-policy';

/** A listener that counts what it is asked and answers with `answer`. */
async function listener(answer: (path: string) => { status: number; headers?: Record<string, string>; body?: string }) {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const a = answer(req.url ?? '');
    res.writeHead(a.status, a.headers);
    res.end(a.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, asked, close: () => new Promise((r) => server.close(r)) };
}

/**
 * The strict policy, except that it trusts the first host: it stands for a public media server
 * (this test's listener is on loopback), so what is tested is the check of each redirect's hop.
 */
class TrustingFirstHost extends TargetPolicy {
  constructor(private readonly trusted: string) {
    super({ allowPrivate: false });
  }
  override async check(raw: string): Promise<TargetCheck> {
    return raw.startsWith(this.trusted) ? { ok: true, url: new URL(raw) } : super.check(raw);
  }
  override dispatcher() {
    return undefined;
  }
}

describe('fetching a tenant-chosen URL', () => {
  it('refuses a redirect to an internal address and never asks it (the admin /metrics case)', async () => {
    const admin = await listener(() => ({ status: 200, body: 'process_resident_memory_bytes 1' }));
    const media = await listener(() => ({ status: 302, headers: { location: `${admin.url}/metrics` } }));
    try {
      const policy = new TrustingFirstHost(media.url);
      const err = await fetchTarget(`${media.url}/video.mp4`, {
        policy,
        maxBytes: 1024,
        signal: AbortSignal.timeout(5000),
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TargetRefusedError);
      expect(String((err as Error).message)).toMatch(/must use https|private or local/);
      expect(media.asked).toEqual(['/video.mp4']);
      expect(admin.asked).toEqual([]);
      // Also for an https hop to a private literal.
      const https = await listener(() => ({ status: 307, headers: { location: 'https://10.0.0.5/metrics' } }));
      await expect(
        fetchTarget(https.url, {
          policy: new TrustingFirstHost(https.url),
          maxBytes: 1024,
          signal: AbortSignal.timeout(5000),
        }),
      ).rejects.toThrow(/private or local/);
      await https.close();
    } finally {
      await media.close();
      await admin.close();
    }
  });

  it('with private targets allowed follows a few redirects, then answers the last status', async () => {
    const end = await listener(() => ({ status: 200, headers: { 'content-type': 'video/mp4' }, body: 'bytes' }));
    const hop = await listener(() => ({ status: 301, headers: { location: `${end.url}/v.mp4` } }));
    const loop = await listener(() => ({ status: 302, headers: { location: '/again' } }));
    try {
      const policy = new TargetPolicy({ allowPrivate: true });
      const ok = await fetchTarget(hop.url, { policy, maxBytes: 1024, signal: AbortSignal.timeout(5000) });
      expect(ok).toEqual({ status: 200, contentType: 'video/mp4', body: Buffer.from('bytes') });
      const looped = await fetchTarget(loop.url, { policy, maxBytes: 1024, signal: AbortSignal.timeout(5000) });
      expect(looped.status).toBe(302);
      expect(loop.asked.length).toBe(4);
    } finally {
      await Promise.all([end.close(), hop.close(), loop.close()]);
    }
  });
});
