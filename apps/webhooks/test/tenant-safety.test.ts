import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { CreatedSubscriptionView, RotatedSecretView } from '@app/contracts';
import { createDataSource } from '@app/database';
import { NatsClients } from '@app/messaging';
import { waitFor } from '@app/testing';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { webhooksSchema } from '../src/database/schema';
import { SecretCipher } from '../src/subscriptions/secret-cipher';
import { SubscriptionsRepository } from '../src/subscriptions/subscriptions.repository';
import { call, channelEvent, publishEvent } from './support/api';
import { hang, Receiver, verifies } from './support/receiver';

const TIMEOUT_MS = 3000;
const GLOBAL_CONCURRENCY = 4;
const PER_TENANT = 2;
const MAX_SUBSCRIPTIONS = 5;

/** What one tenant can do to the others, and what a database dump would show of its secrets. */
describe('webhooks: limits per tenant and secrets at rest', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let clients: NatsClients;
  let receiver: Receiver;
  let db: Client;
  let api: string;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'webhooks_tenant',
      services: ['api', 'webhooks'],
      env: {
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_RETRY_SCHEDULE: '10s',
        WEBHOOK_POLL_INTERVAL_MS: '50',
        WEBHOOK_CONCURRENCY: String(GLOBAL_CONCURRENCY),
        WEBHOOK_CONCURRENCY_PER_TENANT: String(PER_TENANT),
        WEBHOOK_MAX_SUBSCRIPTIONS_PER_USER: String(MAX_SUBSCRIPTIONS),
        WEBHOOK_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      },
    });
    api = platform.urls.api;
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'webhooks-tenant-test' });
    receiver = await new Receiver().start();
    db = new Client({ connectionString: platform.infra.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await receiver?.stop();
    await clients?.drain();
    await factory?.close();
    await platform?.stop();
  });

  const subscribe = (user: TestUser, url: string) =>
    call<CreatedSubscriptionView>(api, user.auth, 'POST', '/subscriptions', { url, events: '*' });

  it('refuses a subscription beyond the per-user limit with a 409 problem', async () => {
    const user = await factory.user();
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) {
      expect((await subscribe(user, receiver.url(`/cap-${i}`))).status).toBe(201);
    }
    const refused = await subscribe(user, receiver.url('/cap-extra'));
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 409, detail: expect.stringMatching(/at most 5 subscriptions/) });
    // Another user is not affected, and deleting one makes room again.
    expect((await subscribe(await factory.user(), receiver.url('/cap-other'))).status).toBe(201);
    const list = await call<{ id: string }[]>(api, user.auth, 'GET', '/subscriptions');
    expect(list.body).toHaveLength(MAX_SUBSCRIPTIONS);
    expect((await call(api, user.auth, 'DELETE', `/subscriptions/${list.body[0].id}`)).status).toBe(204);
    expect((await subscribe(user, receiver.url('/cap-again'))).status).toBe(201);
  });

  it("one tenant's hanging endpoints hold at most its own share of the slots", async () => {
    receiver.on('/tenant-hangs', hang);
    const noisy = await factory.user();
    // More hanging endpoints than the process has slots: without a limit per tenant they take all.
    for (let i = 0; i < GLOBAL_CONCURRENCY; i++) {
      expect((await subscribe(noisy, receiver.url('/tenant-hangs'))).status).toBe(201);
    }
    await publishEvent(clients, platform.infra.topology, channelEvent(noisy.userId));
    await waitFor(() => receiver.at('/tenant-hangs').length >= PER_TENANT, 5000, 'hanging attempts under way');

    const quiet = await factory.user();
    const healthy = await subscribe(quiet, receiver.url('/tenant-healthy'));
    const event = channelEvent(quiet.userId);
    const published = Date.now();
    await publishEvent(clients, platform.infra.topology, event);
    const got = await waitFor(
      () => receiver.at('/tenant-healthy').find((r) => r.headers['webhook-id'] === event.id),
      10_000,
      'the other tenant delivery',
    );
    // Delivered while the noisy tenant's attempts still hang, not after they time out.
    expect(got.at - published).toBeLessThan(TIMEOUT_MS / 2);
    expect(receiver.at('/tenant-hangs').length).toBe(PER_TENANT);
    expect(verifies(healthy.body.secret, got)).toBe(true);
  });

  it('stores signing secrets encrypted; deliveries still verify with standardwebhooks, before and after a rotation', async () => {
    const user = await factory.user();
    const created = await subscribe(user, receiver.url('/sealed'));
    const secret = created.body.secret;
    const row = async () =>
      (
        await db.query<{ secret: string; previous_secret: string | null; secret_key_id: string }>(
          `SELECT secret, previous_secret, secret_key_id FROM webhooks.subscriptions WHERE id = $1`,
          [created.body.id],
        )
      ).rows[0];
    const stored = await row();
    expect(stored.secret_key_id).toBe('k1');
    expect(stored.secret).not.toContain(secret);
    expect(stored.secret).not.toContain(secret.slice('whsec_'.length));
    // AES-256-GCM under key k1: version, key id, 12-byte nonce, as many bytes as the secret, 16-byte tag.
    const [version, keyId, nonce, body, tag] = stored.secret.split('.');
    expect([version, keyId]).toEqual(['v1', 'k1']);
    expect([nonce, body, tag].map((p) => Buffer.from(p, 'base64url').length)).toEqual([12, secret.length, 16]);

    await publishEvent(clients, platform.infra.topology, channelEvent(user.userId));
    await waitFor(() => receiver.at('/sealed').length === 1, 5000, 'first delivery');
    expect(verifies(secret, receiver.at('/sealed')[0])).toBe(true);

    const rotated = await call<RotatedSecretView>(
      api,
      user.auth,
      'POST',
      `/subscriptions/${created.body.id}/rotate-secret`,
    );
    expect(rotated.status).toBe(200);
    const after = await row();
    expect(after.secret).not.toContain(rotated.body.secret.slice('whsec_'.length));
    expect(after.previous_secret).not.toBeNull();
    expect(after.previous_secret).not.toContain(secret.slice('whsec_'.length));

    await publishEvent(clients, platform.infra.topology, channelEvent(user.userId));
    await waitFor(() => receiver.at('/sealed').length === 2, 5000, 'delivery after the rotation');
    const second = receiver.at('/sealed')[1];
    expect(verifies(rotated.body.secret, second)).toBe(true);
    expect(verifies(secret, second)).toBe(true);
  });

  it('re-seals secrets stored in clear, and under an old key once a new one comes first', async () => {
    const user = await factory.user();
    const created = await subscribe(user, receiver.url('/resealed'));
    const id = created.body.id;
    // A row from before sealing existed: in clear, no key id. The running service's housekeeping seals it.
    await db.query(`UPDATE webhooks.subscriptions SET secret = $2, secret_key_id = NULL WHERE id = $1`, [
      id,
      created.body.secret,
    ]);
    await waitFor(
      async () =>
        (await db.query(`SELECT secret_key_id FROM webhooks.subscriptions WHERE id = $1`, [id])).rows[0]
          .secret_key_id === 'k1',
      5000,
      'the clear row sealed',
    );

    // Key rotation: k2 first, k1 still known; re-sealing moves every row to k2, which then opens alone.
    const k2 = `k2:${randomBytes(32).toString('base64')}`;
    const ds = createDataSource(platform.infra.databaseUrl, webhooksSchema, 1);
    await ds.initialize();
    try {
      const both = new SubscriptionsRepository(
        ds,
        SecretCipher.fromConfig({
          WEBHOOK_SECRET_KEYS: `${k2},${platform.env.WEBHOOK_SECRET_KEYS}`,
          isProduction: true,
        }),
      );
      while ((await both.reseal()) > 0);
      const row = (
        await db.query<{ id: string; secret: string; previous_secret: null; secret_key_id: string }>(
          `SELECT id, secret, previous_secret, secret_key_id FROM webhooks.subscriptions WHERE id = $1`,
          [id],
        )
      ).rows[0];
      expect(row.secret_key_id).toBe('k2');
      const onlyK2 = new SubscriptionsRepository(
        ds,
        SecretCipher.fromConfig({ WEBHOOK_SECRET_KEYS: k2, isProduction: true }),
      );
      expect(onlyK2.openSecrets(row, false)).toEqual([created.body.secret]);
    } finally {
      await ds.destroy();
    }
  });
});
