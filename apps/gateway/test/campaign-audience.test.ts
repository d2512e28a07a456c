import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { primaryAddressKind } from '@app/contracts';
import { createDataSource } from '@app/database';
import { Platform, startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { Identities } from '../src/contacts/contact-fields';
import { ContactsRepository } from '../src/contacts/contacts.repository';
import { EMPTY_CONTACT } from '../src/contacts/contacts.service';
import { gatewaySchema } from '../src/database/schema';
import { CampaignsApiState, startCampaignsApi } from './support/campaigns-api';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Audiences that resolve to nobody and the frequency rules' exclusions, through the gateway
 * against the stand-in for the api's campaign subjects: an unknown list (alone or among known
 * ones) and a filter matching nobody are warnings in the estimate and a 422 at launch that leaves
 * the draft as it was; the estimate counts the contacts the frequency rules keep out.
 */
describe('gateway campaign audiences', () => {
  let platform: Platform;
  let api: { state: CampaignsApiState; close(): Promise<void> };
  let db: DataSource;
  let contacts: ContactsRepository;
  let accountId: string;
  let token: string;

  const call = async (path: string, body?: unknown) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };
  const create = async (over: Json) => {
    const res = await call('/v1/campaigns', {
      name: 'Sale',
      template: 'sale_announcement',
      params: [],
      channels: ['whatsapp', 'telegram'],
      ...over,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const contact = ({ whatsapp, telegram, ...v }: Partial<typeof EMPTY_CONTACT> & Identities) =>
    contacts.insert(accountId, {
      ...EMPTY_CONTACT,
      ...v,
      addresses: Object.entries({ whatsapp, telegram })
        .filter((e): e is [string, string] => !!e[1])
        .map(([channel, value]) => ({ channel, kind: primaryAddressKind(channel)!.kind, value })),
    });
  const estimate = (id: string) => call(`/v1/campaigns/${id}/estimate`);
  const launch = (id: string) => call(`/v1/campaigns/${id}/launch`);

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-campaign-audience',
      services: ['gateway'],
      env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
    });
    api = await startCampaignsApi(platform.env);
    db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await db.initialize();
    contacts = new ContactsRepository(db);
    const mine = await new AccountsRepository(db).createAccount('shop', randomUUID());
    accountId = mine.account.id;
    token = mine.token;
    await db.query(
      `INSERT INTO connections (id, account_id, channel, state, app_id, bot_id, credential)
       VALUES ($1, $2, 'whatsapp', 'active', 7, NULL, NULL), ($3, $2, 'telegram', 'active', NULL, '4242', 'sealed-telegram-token')`,
      [uuidv7(), accountId, uuidv7()],
    );
    await contact({ name: 'Anna', whatsapp: '79990000101', lists: ['customers'], attributes: { tier: 'silver' } });
    await contact({ name: 'Boris', telegram: '2002', lists: ['customers', 'vip'], attributes: { tier: 'silver' } });
    await contact({ name: 'Vera', whatsapp: '79990000103', lists: ['customers'] });
    // Only on MAX, which the account has no connection of.
    await contact({ name: 'Max only', lists: ['unreachable'], attributes: { tier: 'gold' } });
  });

  afterAll(async () => {
    await db?.destroy();
    await api?.close();
    await platform?.stop();
  });

  it('a list name with a typo: a warning naming it in the estimate, a 422 naming it at launch, the draft unchanged', async () => {
    const c = await create({ audience: { list: 'custmers' } });
    const e = await estimate(c.id);
    expect(e.status).toBe(200);
    expect(e.body).toMatchObject({ audience: 0, recipients: 0 });
    expect(e.body.warnings).toEqual([
      { code: 'unknown_list', list: 'custmers', detail: 'no contact of the account is in the list "custmers"' },
    ]);
    const l = await launch(c.id);
    expect(l.status).toBe(422);
    expect(l.body).toMatchObject({ type: expect.stringContaining('/problems/empty-audience'), status: 422 });
    expect(l.body.detail).toContain('custmers');
    expect(l.body.warnings).toEqual(e.body.warnings);
    expect(api.state.campaigns.get(c.id)!.state).toBe('draft');
    expect(api.state.loaded.get(c.id) ?? []).toEqual([]);
  });

  it('an unknown list among known ones is named alone; a filter of known lists matching nobody is named as a filter', async () => {
    const unknown = await create({ audience: { filter: { lists: ['customers', 'vipp'] } } });
    expect((await estimate(unknown.id)).body.warnings).toEqual([
      { code: 'unknown_list', list: 'vipp', detail: 'no contact of the account is in the list "vipp"' },
    ]);
    expect((await launch(unknown.id)).status).toBe(422);

    const filter = { lists: ['customers', 'vip'], attributes: { tier: 'gold' } };
    const nobody = await create({ audience: { filter } });
    const e = await estimate(nobody.id);
    expect(e.body).toMatchObject({ audience: 0, recipients: 0 });
    expect(e.body.warnings).toEqual([
      { code: 'no_match', filter, detail: expect.stringContaining('no contact matches the filter') },
    ]);
    const l = await launch(nobody.id);
    expect(l.status).toBe(422);
    expect(l.body.warnings).toEqual(e.body.warnings);

    // The same filter matching someone has no warning and launches.
    const some = await create({ audience: { filter: { lists: ['customers', 'vip'] } } });
    expect((await estimate(some.id)).body.warnings).toEqual([]);
    expect((await launch(some.id)).status).toBe(200);
  });

  it('an audience whose every contact is excluded warns and is refused, leaving nothing loaded', async () => {
    const c = await create({ audience: { list: 'unreachable' } });
    const e = await estimate(c.id);
    expect(e.body).toMatchObject({ audience: 1, recipients: 0, excluded: { no_identity: 1 } });
    expect(e.body.warnings.map((w: Json) => w.code)).toEqual(['no_recipients']);
    const l = await launch(c.id);
    expect(l.status).toBe(422);
    expect(l.body.warnings.map((w: Json) => w.code)).toEqual(['no_recipients']);
    expect(api.state.campaigns.get(c.id)!.state).toBe('draft');
    expect(api.state.loaded.get(c.id) ?? []).toEqual([]);
  });

  it('counts the contacts the frequency rules keep out, by reason, asking with the campaign’s override', async () => {
    const [anna, boris] = await db.query<{ id: string }[]>(
      `SELECT id FROM contacts WHERE account_id = $1 AND name IN ('Anna', 'Boris') ORDER BY name`,
      [accountId],
    );
    api.state.frequencyLimited.set(anna.id, 'frequency_cap').set(boris.id, 'recent_template');
    const frequency = { frequency_cap: { messages: 2, period_hours: 24 }, recent_template_days: null };
    const c = await create({ audience: { list: 'customers' }, frequency });
    const e = await estimate(c.id);
    expect(e.body).toMatchObject({
      audience: 3,
      recipients: 1,
      excluded: { frequency_cap: 1, recent_template: 1, opted_out: 0 },
      channels: { whatsapp: { recipients: 1 } },
    });
    expect(api.state.frequencyAsked.at(-1)).toMatchObject({
      template: 'sale_announcement',
      category: 'MARKETING',
      frequency,
    });
    api.state.frequencyLimited.clear();
  });

  it('counts quiet hours only for the recipients inside them at the start', async () => {
    const hour = new Date(Date.now()).getUTCHours();
    const hh = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
    // Later today in every recipient's zone (the account's, UTC): nobody is held now.
    const later = await create({
      audience: { list: 'customers' },
      quiet_hours: { start: hh(hour + 3), end: hh(hour + 5) },
    });
    const free = await estimate(later.id);
    expect(free.body.limits.map((l: Json) => l.limit)).not.toContain('quiet_hours');
    expect(free.body.time.limited_by).toBe('pacing');
    // Now: all three are held until the window ends.
    const now = await create({
      audience: { list: 'customers' },
      quiet_hours: { start: hh(hour - 1), end: hh(hour + 2) },
    });
    const held = await estimate(now.id);
    expect(held.body.time.limited_by).toBe('quiet_hours');
    expect(held.body.limits).toContainEqual(expect.objectContaining({ limit: 'quiet_hours', recipients: 3 }));
  });

  it('refuses bad frequency overrides naming each field', async () => {
    const res = await call('/v1/campaigns', {
      name: 'Sale',
      template: 'sale_announcement',
      audience: { list: 'customers' },
      channels: ['whatsapp'],
      frequency: { frequency_cap: { messages: 0, period_hours: 10_000 }, recent_template_days: 1.5, x: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: Json) => e.field).sort()).toEqual([
      'frequency.frequency_cap.messages',
      'frequency.frequency_cap.period_hours',
      'frequency.recent_template_days',
      'frequency.x',
    ]);
  });
});
