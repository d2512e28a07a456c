import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { sleep } from '@app/testing';
import { ChaosCluster, Restart } from './cluster';
import { SendTarget } from './load';

/** What became of a send whose Idempotency-Key was in flight when the api was killed. */
export interface InFlightKeyOutcome {
  key: string;
  restart: Restart;
  /** The retries' answers from the new api, in order (e.g. `409, 409, 201`). */
  answers: string[];
  /** Milliseconds from the new api's readiness to the 201; null when it never came. */
  acceptedAfterReadyMs: number | null;
  messageId: string | null;
}

/**
 * Kills the api (its first replica) while a send holds its Idempotency-Key: the send is made to wait
 * on its user's balance row (locked here), so its key is in progress at the kill. Then retries it with
 * the same key, as a client does (409: after Retry-After), from the moment the new process is ready.
 */
export async function killApiWithKeyInFlight(
  cluster: ChaosCluster,
  target: SendTarget,
  userId: string,
  giveUpMs = 60_000,
): Promise<InFlightKeyOutcome> {
  const key = randomUUID();
  // The first send goes to the replica about to be killed; the retries through the api's address
  // (with replicas, the balancer: the survivor may answer before the killed one is back).
  const send = (base = cluster.urls.api) =>
    fetch(`${base}/api/v1/wa/apps/${target.appId}/messages`, {
      method: 'POST',
      headers: { authorization: target.auth, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({
        phone: '7999999995678',
        type: 'TEMPLATE',
        template: { name: target.template, components: { body: { values: ['in flight', 'at the kill'] } } },
      }),
      signal: AbortSignal.timeout(10_000),
    });
  const db = new Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  let restart: InFlightKeyOutcome['restart'];
  try {
    await db.query('BEGIN');
    await db.query('SELECT 1 FROM api.balances WHERE user_id = $1 FOR UPDATE', [userId]);
    const first = send(cluster.replicaUrl('api', 0)).catch(() => null);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await db.query<{ state: string }>(
        'SELECT state FROM api.idempotency_keys WHERE user_id = $1 AND key = $2',
        [userId, key],
      );
      if (rows[0]?.state === 'PENDING') break;
      if (Date.now() > deadline) throw new Error('the send never held its key');
      await sleep(20);
    }
    restart = await cluster.killAndRestart('api', 0);
    await first;
  } finally {
    await db.query('ROLLBACK').catch(() => undefined);
    await db.end();
  }
  const readyAt = Date.now();
  const answers: string[] = [];
  while (Date.now() - readyAt < giveUpMs) {
    let wait = 500;
    try {
      const res = await send();
      const body = (await res.json()) as { message?: { id: string } };
      answers.push(String(res.status));
      if (res.status === 201) {
        return { key, restart, answers, acceptedAfterReadyMs: Date.now() - readyAt, messageId: body.message!.id };
      }
      wait = Number(res.headers.get('retry-after') ?? '1') * 1000 || 1000;
    } catch (err) {
      answers.push((err as { cause?: { code?: string } }).cause?.code ?? 'error');
    }
    await sleep(wait);
  }
  return { key, restart, answers, acceptedAfterReadyMs: null, messageId: null };
}

/** How many messages were made with this Idempotency-Key. */
export async function messagesWithKey(databaseUrl: string, userId: string, key: string): Promise<number> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM api.messages WHERE user_id = $1 AND idempotency_key = $2',
      [userId, key],
    );
    return rows[0].n;
  } finally {
    await db.end();
  }
}
