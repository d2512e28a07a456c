import type { Subscription } from '@nats-io/nats-core';
import { EventEnvelope } from '@app/contracts';
import { createDataSource } from '@app/database';
import { NatsClients } from '@app/messaging';
import { waitFor } from '@app/testing';
import { AppSignalsService } from '../../apps/api/src/app-signals/app-signals.service';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import type { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxNumber } from '../support/sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Live account signals: the emulated channel changes a number's quality, messaging limit,
 * restriction, ban or connection and sends the webhook Meta sends; the gateway relays it, the api
 * applies it to the app (GET shows it) and publishes `app.updated`. A RED rating or a restriction
 * pauses marketing sends only, until it lifts; the periodic pull repairs a missed callback.
 */
describe('live WhatsApp account signals', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let user: TestUser;
  let app: AppEntity;
  let nats: NatsClients;
  let sub: Subscription;
  let gatewayToken: string;
  const updates: EventEnvelope[] = [];

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${platform.urls.api}/api/v1${path}`, {
      method,
      headers: { authorization: user.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Json };
  };
  const getApp = async () => (await api('GET', `/wa/apps/${app.id}`)).body;
  const signal = async (kind: string, value: unknown, callback = true) => {
    const res = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/signals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number_id: app.phoneNumberId, kind, value, callback }),
    });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    if (callback) expect(body.webhook).toEqual({ delivered: true, status: 200 });
    return body;
  };
  /** The next `app.updated` of the app after the `seen` first ones that satisfies `match`. */
  const nextUpdate = (seen: number, match: (data: Json) => boolean) =>
    waitFor(
      () => updates.slice(seen).find((e) => e.app_id === app.id && match(e.data)),
      15_000,
      'an app.updated event',
    );
  const send = (template: string) =>
    api('POST', `/wa/apps/${app.id}/messages`, {
      phone: `7999${Math.floor(1_000_000 + Math.random() * 8_999_999)}`,
      type: 'TEMPLATE',
      template: { name: template, components: { body: { values: ['x'] } } },
    });

  /** The same send through the gateway node (`POST /v1/messages`), with the account's token. */
  const gatewaySend = async (template: string) => {
    const res = await fetch(`${platform.urls.gateway}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gatewayToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'whatsapp', to: '5511987654321', template, params: ['x'] }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'app-signals',
      services: ['api', 'gateway', 'sandbox'],
      // The pull runs when the test asks for it.
      env: { APP_SIGNALS_SYNC_INTERVAL_MS: '0' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system', { balance: 50 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'promo', category: 'MARKETING', body: 'Sale {{1}}' });
    await factory.sendableTemplate(app.id, { name: 'receipt', category: 'UTILITY', body: 'Receipt {{1}}' });
    const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    gatewayToken = (await new AccountsRepository(gatewayDb).createAccount('shop', user.userId)).token;
    await gatewayDb.destroy();
    const connected = await fetch(`${platform.urls.gateway}/v1/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gatewayToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'whatsapp', app_id: app.id }),
    });
    expect(connected.status).toBe(201);
    nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'app-signals-test' });
    sub = nats.nc.subscribe(platform.infra.topology.eventSubject('app.updated'));
    void (async () => {
      for await (const m of sub) updates.push(m.json<EventEnvelope>());
    })();
  });

  afterAll(async () => {
    sub?.unsubscribe();
    await nats?.drain();
    await factory?.close();
    await platform?.stop();
  });

  it('a messaging limit upgrade raises the app’s tier and reaches EVENTS as app.updated', async () => {
    const seen = updates.length;
    await signal('limit', 'TIER_10K');
    const event = await nextUpdate(seen, (d) => d.message_limit === 'TIER_10K');
    expect(event).toMatchObject({ type: 'app.updated', channel: 'whatsapp', user_id: user.userId });
    expect(event.data).toMatchObject({ reason: 'UPGRADE', marketing_paused: false });
    expect((await getApp()).message_limit).toBe('TIER_10K');
  });

  it('a repeated signal changes nothing and publishes nothing', async () => {
    const seen = updates.length;
    await signal('limit', 'TIER_10K');
    // A later, different signal is relayed after it (in order): by then the repeat was applied.
    await signal('offboarded', true);
    await nextUpdate(seen, (d) => d.is_stopped === true);
    expect(updates.slice(seen).filter((e) => e.app_id === app.id && 'message_limit' in e.data)).toEqual([]);
    const stopped = await getApp();
    expect(stopped).toMatchObject({ is_stopped: true, message_limit: 'TIER_10K' });
    expect((await send('receipt')).status).toBe(403);
    await signal('offboarded', false);
    await nextUpdate(seen, (d) => d.is_stopped === false);
    expect((await getApp()).is_stopped).toBe(false);
  });

  it('a business capability of 1000 conversations shows as TIER_2K and caps at 1000', async () => {
    const seen = updates.length;
    await signal('capability', 1000);
    const event = await nextUpdate(seen, (d) => d.message_limit === 'TIER_2K');
    expect(event.data.message_cap).toBe(1000);
    expect((await getApp()).message_limit).toBe('TIER_2K');
  });

  it('RED quality refuses marketing sends with 403 marketing-paused, utility sends pass; lifting it lets marketing through', async () => {
    const seen = updates.length;
    await signal('quality', 'RED');
    const flagged = await nextUpdate(seen, (d) => d.phone_quality === 'RED');
    expect(flagged.data).toMatchObject({ reason: 'FLAGGED', marketing_paused: true });
    expect((await getApp()).phone_quality).toBe('RED');

    const refused = await send('promo');
    expect(refused.status).toBe(403);
    expect(refused.type).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ type: '/problems/marketing-paused', status: 403, title: 'Marketing paused' });
    expect(refused.body.detail).toMatch(/RED.*lifts automatically/s);
    expect((await send('receipt')).status).toBe(201);
    // The gateway node's sends go through the same send path.
    const viaGateway = await gatewaySend('promo');
    expect(viaGateway.status).toBe(403);
    expect(viaGateway.body.type).toBe('/problems/marketing-paused');
    expect((await gatewaySend('receipt')).status).toBe(202);

    // UNFLAGGED: no longer low; the api asks the channel for the exact rating.
    await signal('quality', 'YELLOW');
    await nextUpdate(seen, (d) => d.phone_quality === 'YELLOW');
    expect((await getApp()).phone_quality).toBe('YELLOW');
    expect((await send('promo')).status).toBe(201);
    expect((await gatewaySend('promo')).status).toBe(202);
  });

  it('a restriction of business-initiated messaging pauses marketing until it is lifted', async () => {
    const seen = updates.length;
    await signal('restriction', true);
    const restricted = await nextUpdate(seen, (d) => d.restricted === true);
    expect(restricted.data).toMatchObject({ reason: 'ACCOUNT_RESTRICTION', marketing_paused: true });
    expect(restricted.data.restricted_until).toBeGreaterThan(Date.now() / 1000);
    const refused = await send('promo');
    expect(refused.status).toBe(403);
    expect(refused.body.type).toBe('/problems/marketing-paused');
    expect(refused.body.detail).toMatch(/restricts business-initiated messaging/);
    expect((await send('receipt')).status).toBe(201);

    await signal('restriction', false);
    const lifted = await nextUpdate(seen, (d) => d.restricted === false);
    expect(lifted.data.marketing_paused).toBe(false);
    expect((await send('promo')).status).toBe(201);
  });

  it('a disabled account is BLOCKED and cannot send; reinstated it is ACTIVE again', async () => {
    const seen = updates.length;
    await signal('disabled', true);
    await nextUpdate(seen, (d) => d.status === 'BLOCKED');
    expect((await getApp()).status).toBe('BLOCKED');
    expect((await send('receipt')).status).toBe(403);
    await signal('disabled', false);
    await nextUpdate(seen, (d) => d.status === 'ACTIVE');
    expect((await getApp()).status).toBe('ACTIVE');
    expect((await send('receipt')).status).toBe(201);
  });

  it('the periodic pull repairs a state changed on the channel without a callback', async () => {
    await signal('quality', 'RED', false);
    await signal('limit', 'TIER_100K', false);
    expect((await getApp()).phone_quality).toBe('YELLOW');
    const seen = updates.length;
    const pull = platform.apps.api!.get(AppSignalsService);
    expect(await pull.syncAll()).toBe(1);
    const repaired = await getApp();
    expect(repaired).toMatchObject({ phone_quality: 'RED', message_limit: 'TIER_100K' });
    const event = await nextUpdate(seen, (d) => d.phone_quality === 'RED');
    expect(event.data).toMatchObject({ message_limit: 'TIER_100K', marketing_paused: true });
    expect((await send('promo')).status).toBe(403);
    // Nothing differs any more: a second pull changes nothing.
    expect(await pull.syncAll()).toBe(0);
  });

  it('the sandbox refuses a value of the wrong kind (400 naming value) and an unknown number (404)', async () => {
    const post = async (body: unknown) => {
      const res = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/signals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Json };
    };
    for (const [kind, value] of [
      ['quality', 'PURPLE'],
      ['limit', 'TIER_3K'],
      ['capability', 'lots'],
      ['restriction', 'yes'],
      ['disabled', undefined],
    ]) {
      const bad = await post({ phone_number_id: app.phoneNumberId, kind, value });
      expect(bad.status).toBe(400);
      expect(bad.type).toContain('application/problem+json');
      expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'value' })]);
    }
    expect((await post({ phone_number_id: app.phoneNumberId, kind: 'weather', value: 1 })).status).toBe(400);
    expect((await post({ phone_number_id: '999000999', kind: 'quality', value: 'RED' })).status).toBe(404);
  });
});
