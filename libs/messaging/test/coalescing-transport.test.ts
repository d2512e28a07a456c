import type { Socket } from 'node:net';
import { connectNats } from '@app/messaging';
import { startTestInfra, TestInfra } from '@app/testing';
import type { NatsConnection } from '@nats-io/nats-core';

/** Counts the writes that reach a connection's socket (one system call each, whatever they carry). */
function countWrites(nc: NatsConnection): () => number {
  const socket = (nc as unknown as { protocol: { transport: { socket: Socket } } }).protocol.transport.socket;
  const s = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  let writes = 0;
  for (const name of ['_write', '_writev'] as const) {
    const original = s[name].bind(socket);
    s[name] = (...args: unknown[]) => {
      writes++;
      return original(...args);
    };
  }
  return () => writes;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('NATS connection writes, gathered per turn of the event loop', () => {
  let infra: TestInfra;
  let nc: NatsConnection;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'coalescing', database: false });
    nc = await connectNats({ url: infra.natsUrl, name: 'coalescing-test' });
  });
  afterAll(async () => {
    await nc?.close();
    await infra?.stop();
  });

  it('publications made from separate microtask runs of one turn leave in one write, and all arrive', async () => {
    const subject = `${infra.prefix}.coalesce`;
    const got: string[] = [];
    const sub = nc.subscribe(subject, { callback: (_err, msg) => void got.push(msg.string()) });
    await nc.flush();
    await nextTurn();
    const writes = countWrites(nc);
    for (let i = 0; i < 20; i++) {
      nc.publish(subject, String(i));
      // The client writes what it has queued once the current microtasks have run: this lets it.
      await new Promise<void>((resolve) => queueMicrotask(resolve));
    }
    await nextTurn();
    expect(writes()).toBe(1);
    await nc.flush();
    expect(got).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    sub.unsubscribe();
  });

  it('requests of different turns are each answered (nothing waits for a later turn to be written)', async () => {
    const subject = `${infra.prefix}.echo`;
    const sub = nc.subscribe(subject, { callback: (_err, msg) => void msg.respond(msg.data) });
    for (let i = 0; i < 5; i++) {
      const reply = await nc.request(subject, `ping ${i}`, { timeout: 2000 });
      expect(reply.string()).toBe(`ping ${i}`);
      await nextTurn();
    }
    sub.unsubscribe();
  });
});
