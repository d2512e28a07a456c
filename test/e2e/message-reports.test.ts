import { randomUUID } from 'node:crypto';
import { waitFor } from '@app/testing';
import {
  createCampaign,
  gatewayAccount,
  gatewayClient,
  importContacts,
  launchCampaign,
  untilCampaignState,
} from '../support/campaigns';
import { TELEGRAM_PRICE, useCampaignsPlatform, WHATSAPP_PRICE } from '../support/campaigns-platform';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const today = () => new Date().toISOString().slice(0, 10);

/**
 * Reports that join up, on the real services and emulators: the delivery report filtered by
 * campaign and by contact (with paging and the cursor, and never another account's messages), each
 * message naming its campaign and contact, the recipient masked by its address kind, a Telegram
 * message's one status in the report, its charge and the usage report, and spend per campaign.
 */
describe('reports that join up', () => {
  const suite = useCampaignsPlatform('e2e-message-reports');
  let { platform, factory, user, gateway } = suite;
  beforeAll(() => ({ platform, factory, user, gateway } = suite));

  let campaignId: string;
  let secondCampaignId: string;
  const contacts: Record<string, { id: string }> = {};

  /** Every message of a report query, page by page (`limit` a page), with the pages' sizes. */
  const allPages = async (query: string, limit: number) => {
    const seen: Json[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const res = await gateway(
        'GET',
        `/v1/messages?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...(res.body.data as Json[]));
      sizes.push(res.body.data.length);
      cursor = res.body.next_cursor as string | null;
      if (cursor === null) return { seen, sizes };
    }
    throw new Error('the pages never ended');
  };
  const reportOf = async (id: string) => (await gateway('GET', `/v1/messages/${id}`)).body;

  it('names the campaign and the contact on each message, and filters by them with paging', async () => {
    await importContacts(gateway, [
      // On Telegram first: the campaign reaches her there.
      {
        external_id: 'crm-ana',
        name: 'Ana',
        identities: { telegram: '424242', whatsapp: '5511987650001' },
        lists: ['r'],
      },
      { external_id: 'crm-bo', name: 'Bo', identities: { whatsapp: '5511987650002' }, lists: ['r'] },
      { external_id: 'crm-cy', name: 'Cy', identities: { whatsapp: '5511987650003' }, lists: ['r'] },
    ]);
    for (const ext of ['crm-ana', 'crm-bo', 'crm-cy']) {
      const res = await gateway('GET', `/v1/contacts/ext:${ext}`);
      expect(res.status).toBe(200);
      contacts[ext] = res.body as { id: string };
    }
    campaignId = (
      await createCampaign(gateway, { name: 'Joined', audience: { list: 'r' }, channels: ['telegram', 'whatsapp'] })
    ).id as string;
    await launchCampaign(gateway, campaignId);
    await untilCampaignState(gateway, campaignId, 'completed');

    const { seen, sizes } = await allPages(`campaign_id=${campaignId}`, 2);
    expect(sizes).toEqual([2, 1]);
    expect(new Set(seen.map((m) => m.id)).size).toBe(3);
    // Newest first, as the unfiltered report.
    expect([...seen.map((m) => m.id)].sort().reverse()).toEqual(seen.map((m) => m.id));
    for (const m of seen) expect(m.campaign_id).toBe(campaignId);
    const byContact = new Map(seen.map((m) => [m.contact?.external_id, m]));
    expect(byContact.get('crm-ana')).toMatchObject({
      channel: 'telegram',
      contact: { id: contacts['crm-ana'].id, external_id: 'crm-ana' },
    });
    expect(byContact.get('crm-bo')).toMatchObject({
      channel: 'whatsapp',
      contact: { id: contacts['crm-bo'].id, external_id: 'crm-bo' },
      to: '5511*******02',
    });

    // By contact, with the campaign and the channel, and their paging.
    const ana = await gateway('GET', `/v1/messages?contact_id=${contacts['crm-ana'].id}`);
    expect(ana.body.data.map((m: Json) => m.id)).toEqual([byContact.get('crm-ana')!.id]);
    expect(ana.body.next_cursor).toBeNull();
    const both = await gateway(
      'GET',
      `/v1/messages?contact_id=${contacts['crm-ana'].id.toUpperCase()}&campaign_id=${campaignId}&channel=telegram`,
    );
    expect(both.body.data).toHaveLength(1);
    const none = await gateway('GET', `/v1/messages?contact_id=${contacts['crm-ana'].id}&channel=whatsapp`);
    expect(none.body).toEqual({ data: [], next_cursor: null });

    // A send to a contact names it too; to an address, it names none.
    const direct = await gateway('POST', '/v1/messages', {
      contact: 'ext:crm-bo',
      channels: ['whatsapp'],
      template: 'promo',
      params: ['Bo'],
    });
    expect(direct.status).toBe(202);
    const toAddress = await gateway('POST', '/v1/messages', {
      channel: 'whatsapp',
      to: '5511987650002',
      template: 'promo',
      params: ['Bo'],
    });
    expect(toAddress.status).toBe(202);
    expect(await reportOf(direct.body.id)).toMatchObject({
      campaign_id: null,
      contact: { id: contacts['crm-bo'].id, external_id: 'crm-bo' },
    });
    expect(await reportOf(toAddress.body.id)).toMatchObject({ campaign_id: null, contact: null });
    const bo = await allPages(`contact_id=${contacts['crm-bo'].id}`, 1);
    expect(bo.sizes).toEqual([1, 1]);
    expect(bo.seen.map((m) => m.id)).toEqual([direct.body.id, byContact.get('crm-bo')!.id]);
  });

  it("answers an unknown or another account's campaign or contact with an empty page, a bad id with 400", async () => {
    for (const q of [`campaign_id=${randomUUID()}`, `contact_id=${randomUUID()}`]) {
      expect((await gateway('GET', `/v1/messages?${q}`)).body).toEqual({ data: [], next_cursor: null });
    }
    for (const [q, field] of [
      ['campaign_id=nope', 'campaign_id'],
      ['contact_id=ext:crm-ana', 'contact_id'],
      [`campaign_id=${campaignId}x`, 'campaign_id'],
    ]) {
      const res = await gateway('GET', `/v1/messages?${q}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.errors.map((e: Json) => e.field)).toEqual([field]);
    }
    // Another account of another user sees none of them.
    const other = await factory.user('system', { balance: 1 });
    const stranger = gatewayClient(
      platform.urls.gateway,
      await gatewayAccount(platform.infra.databaseUrl, 'stranger', other.userId),
    );
    for (const q of [`campaign_id=${campaignId}`, `contact_id=${contacts['crm-ana'].id}`]) {
      const res = await stranger('GET', `/v1/messages?${q}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [], next_cursor: null });
    }
    const spend = await stranger('GET', `/v1/usage/campaigns?from=${today()}&to=${today()}&campaign_id=${campaignId}`);
    expect(spend.body).toEqual({ data: [], next_cursor: null });
  });

  it('gives a Telegram message one status in its report, its charge and the usage report, its chat id partly shown', async () => {
    const telegram = (await gateway('GET', `/v1/messages?campaign_id=${campaignId}&channel=telegram`)).body.data[0];
    const report = await waitFor(
      async () => {
        const r = await reportOf(telegram.id);
        return r.charged !== null && r;
      },
      20_000,
      'the Telegram message charged',
      100,
    );
    expect(report.status).toBe('SENT');
    // Enough for support to recognise the chat, never the whole id.
    expect(report.to).toBe('424*42');

    const username = await gateway('POST', '/v1/messages', {
      channel: 'telegram',
      to: '@shop_news',
      template: 'promo',
      params: ['all'],
    });
    expect(username.status).toBe(202);
    expect((await reportOf(username.body.id)).to).toBe('@sh*****ws');

    const transactions = await waitFor(
      async () => {
        const res = await fetch(
          `${platform.urls.api}/api/v1/users/${user.userId}/transactions?start_date=${today()}&limit=1000`,
          { headers: { authorization: user.auth } },
        );
        const rows = res.status === 200 ? ((await res.json()) as Json[]) : [];
        const ofCampaign = rows.filter((t) => t.campaign_id === campaignId);
        return ofCampaign.length === 3 && rows;
      },
      20_000,
      "the campaign's three charges",
      200,
    );
    const ofCampaign = transactions.filter((t: Json) => t.campaign_id === campaignId);
    // The Telegram charge reads SENT, as its message; the WhatsApp ones DELIVERED.
    expect(ofCampaign.map((t: Json) => t.status).sort()).toEqual(['DELIVERED', 'DELIVERED', 'SENT']);
    expect(ofCampaign.find((t: Json) => t.status === 'SENT')!.amount).toBeCloseTo(-TELEGRAM_PRICE, 4);
    // Other charges and top-ups name no campaign.
    expect(
      transactions.filter((t: Json) => t.campaign_id !== campaignId).every((t: Json) => t.campaign_id === null),
    ).toBe(true);

    const usage = await gateway('GET', `/v1/usage?from=${today()}&to=${today()}&channel=telegram`);
    expect(usage.status).toBe(200);
    const counted = (usage.body.data as Json[]).reduce(
      (sum, r) => ({ sent: sum.sent + r.sent, delivered: sum.delivered + r.delivered }),
      { sent: 0, delivered: 0 },
    );
    expect(counted.sent).toBeGreaterThanOrEqual(1);
    expect(counted.delivered).toBe(0);
  });

  it('reports spend per campaign, paged, filtered by campaign', async () => {
    secondCampaignId = (
      await createCampaign(gateway, {
        name: 'Second',
        audience: { contact_ids: ['ext:crm-cy'] },
        channels: ['whatsapp'],
      })
    ).id as string;
    await launchCampaign(gateway, secondCampaignId);
    await untilCampaignState(gateway, secondCampaignId, 'completed');
    const period = `from=${today()}&to=${today()}`;
    const rows = await waitFor(
      async () => {
        const res = await gateway('GET', `/v1/usage/campaigns?${period}`);
        const data = res.body.data as Json[];
        return data?.length === 2 && data.every((r) => r.charged_messages > 0) && data;
      },
      20_000,
      'both campaigns charged',
      200,
    );
    expect(rows.map((r: Json) => r.campaign_id)).toEqual([campaignId, secondCampaignId].sort());
    const first = rows.find((r: Json) => r.campaign_id === campaignId);
    expect(first).toMatchObject({ charged_messages: 3, currency: expect.any(String) });
    expect(first!.cost).toBeCloseTo(2 * WHATSAPP_PRICE + TELEGRAM_PRICE, 4);

    const page1 = await gateway('GET', `/v1/usage/campaigns?${period}&limit=1`);
    expect(page1.body.data).toEqual([rows[0]]);
    const page2 = await gateway('GET', `/v1/usage/campaigns?${period}&limit=1&cursor=${page1.body.next_cursor}`);
    expect(page2.body).toEqual({ data: [rows[1]], next_cursor: null });
    const only = await gateway('GET', `/v1/usage/campaigns?${period}&campaign_id=${secondCampaignId}`);
    expect(only.body).toEqual({
      data: [rows.find((r: Json) => r.campaign_id === secondCampaignId)],
      next_cursor: null,
    });

    for (const q of ['from=2026-13-01&to=2026-13-02', `${period}&campaign_id=nope`, `from=${today()}&to=2000-01-01`]) {
      const res = await gateway('GET', `/v1/usage/campaigns?${q}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});
