import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, hasNatsServer, LocalService, startNatsServer, waitFor } from '@app/testing';
import { NatsClients } from '../src';

/** A private nats-server, stopped and started again on the same port under a connected client. */
(hasNatsServer() ? describe : describe.skip)('NatsClients across a NATS restart', () => {
  let dir: string;
  let port: number;
  let server: LocalService | undefined;
  let clients: NatsClients | undefined;
  const start = async () =>
    (server = await startNatsServer({ dir: join(dir, 'data'), port, logFile: join(dir, 'nats.log') }));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-reconnect-'));
    port = await freePort();
    await start();
    clients = await NatsClients.connect({ url: `nats://127.0.0.1:${port}`, name: 'reconnect-test' });
  });

  afterAll(async () => {
    await clients?.nc.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells its listeners each time the connection is back, and stops telling one that stopped listening', async () => {
    let told = 0;
    let toldStopped = 0;
    clients!.onReconnect(() => told++);
    const stop = clients!.onReconnect(() => toldStopped++);
    await server!.stop();
    await waitFor(() => !clients!.isConnected(), 10_000, 'the client to see the server go');
    expect(told).toBe(0);
    await start();
    await waitFor(() => told === 1, 15_000, 'the reconnect told');
    expect(toldStopped).toBe(1);
    stop();
    await server!.stop();
    await waitFor(() => !clients!.isConnected(), 10_000, 'the client to see the server go again');
    await start();
    await waitFor(() => told === 2, 15_000, 'the second reconnect told');
    expect(toldStopped).toBe(1);
  });
});
