import { Client } from 'pg';
import { variantIndexOf } from '@app/contracts';
import { waitFor } from '@app/testing';
import {
  campaignLedger,
  campaignView,
  gatewayAccount,
  gatewayClient,
  ContactRow,
  createCampaign,
  importContacts,
  launchCampaign,
  recipientsReport,
  untilCampaignState,
} from '../support/campaigns';
import { useCampaignsPlatform } from '../support/campaigns-platform';
import { Endpoint } from '../support/webhook-endpoint';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const variant = (name: string, template: string, share: number, params?: string[]) => ({
  name,
  template,
  share,
  ...(params ? { params } : {}),
});

const BROWSER = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';

/**
 * Campaign variants and tracked links as a business sees them, on the real services and emulators: a definition's
 * variants checked field by field, each contact sent its variant's template and params (the
 * variant a hash of the campaign and the contact chose, the same each time), and the campaign's
 * report comparing the variants; tracked links that redirect, count a person's first click once
 * (previews and HEAD requests not), tell subscribers `message.clicked` and say nothing of a token
 * the gateway never made.
 */
describe('campaign variants end to end', () => {
  const suite = useCampaignsPlatform('e2e-campaign-variants');
  /** The campaigns the engagement filters ask about: every contact read the first; ab-1 and ab-3 clicked the second. */
  let abId: string;
  let linksId: string;
  const rows: ContactRow[] = Array.from({ length: 40 }, (_, k) => ({
    external_id: `ab-${k + 1}`,
    name: `Person ${k + 1}`,
    identities: { whatsapp: `7995${String(k + 1).padStart(7, '0')}` },
    lists: ['ab'],
  }));

  beforeAll(async () => {
    await suite.factory.sendableTemplate(suite.app.id, { name: 'promo_b', category: 'MARKETING', body: 'Hi {{1}}!' });
    expect(await importContacts(suite.gateway, rows)).toMatchObject({ created: 40, rejected: 0 });
  });

  it('refuses 1 or 5 variants, shares not summing to 100 and bad variant fields, naming each', async () => {
    const { gateway } = suite;
    const fields = async (variants: unknown) => {
      const res = await gateway('POST', '/v1/campaigns', {
        name: 'AB',
        template: 'promo',
        audience: { list: 'ab' },
        channels: ['whatsapp'],
        variants,
      });
      expect(res.status).toBe(400);
      expect(res.body.type).toMatch(/\/problems\/validation-error$/);
      return [...new Set((res.body.errors as { field: string }[]).map((e) => e.field))].sort();
    };
    expect(await fields([variant('A', 'promo', 100)])).toEqual(['variants']);
    expect(await fields([1, 2, 3, 4, 5].map((i) => variant(`V${i}`, 'promo', 20)))).toEqual(['variants']);
    expect(await fields([variant('A', 'promo', 50), variant('B', 'promo_b', 40)])).toEqual(['variants']);
    expect(await fields([variant('A', 'Promo!', 50), { ...variant('A', 'promo_b', 50), colour: 'red' }])).toEqual([
      'variants[0].template',
      'variants[1].colour',
      'variants[1].name',
    ]);
  });

  it('sends each contact its variant, the same variant every time, and compares the variants in the report', async () => {
    const { gateway, platform, app } = suite;
    const created = await createCampaign(gateway, {
      name: 'AB test',
      audience: { list: 'ab' },
      channels: ['whatsapp'],
      variants: [
        variant('Name', 'promo', 50, ['{{contact.name}}']),
        variant('Code', 'promo_b', 50, ['code {{contact.external_id}}']),
      ],
    });
    const id = (abId = created.id as string);
    expect(created.variants).toEqual([
      { name: 'Name', template: 'promo', language: null, params: ['{{contact.name}}'], share: 50 },
      { name: 'Code', template: 'promo_b', language: null, params: ['code {{contact.external_id}}'], share: 50 },
    ]);
    // A PATCH that breaks the shares is refused whole; the draft keeps its variants.
    const badPatch = await gateway('PATCH', `/v1/campaigns/${id}`, {
      variants: [variant('Name', 'promo', 60), variant('Code', 'promo_b', 50)],
    });
    expect(badPatch.status).toBe(400);
    expect((await campaignView(gateway, id)).variants).toEqual(created.variants);

    await launchCampaign(gateway, id);
    await untilCampaignState(gateway, id, 'completed');
    const report = await waitFor(
      async () => {
        const r = await recipientsReport(gateway, id);
        return r.every((x) => x.status === 'read') && (await campaignLedger(platform.infra.databaseUrl, id)).held === 0
          ? r
          : false;
      },
      60_000,
      'every message of the campaign read and charged',
      250,
    );
    expect(report).toHaveLength(40);

    // Each contact's variant is the hash of the campaign's and the contact's ids into the shares.
    const expected = new Map(report.map((r) => [r.external_id as string, variantIndexOf(id, r.contact_id, [50, 50])]));
    const counts = [0, 1].map((v) => [...expected.values()].filter((x) => x === v).length);
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBeGreaterThan(0);

    // What WhatsApp received: the variant's template with the variant's params filled in.
    const sent = await suite.whatsappSends(app.phoneNumberId!);
    expect(sent).toHaveLength(40);
    const byPhone = new Map(rows.map((r) => [r.identities.whatsapp!, r]));
    for (const s of sent as unknown as { body: { to: string; template: Json } }[]) {
      const row = byPhone.get(s.body.to.replace(/^\+/, ''))!;
      const v = expected.get(row.external_id)!;
      expect(s.body.template.name).toBe(v === 0 ? 'promo' : 'promo_b');
      expect(JSON.stringify(s.body.template.components)).toContain(v === 0 ? row.name! : `code ${row.external_id}`);
    }

    // Stored per recipient at load: the same variant a second resolution gives.
    const db = new Client({ connectionString: platform.infra.databaseUrl });
    await db.connect();
    try {
      const { rows: stored } = await db.query<{ contact_id: string; variant: number }>(
        `SELECT contact_id, variant FROM api.campaign_recipients WHERE campaign_id = $1`,
        [id],
      );
      expect(stored).toHaveLength(40);
      for (const r of stored) expect(r.variant).toBe(variantIndexOf(id, r.contact_id, [50, 50]));
    } finally {
      await db.end();
    }

    const view = await campaignView(gateway, id);
    const results = view.variant_results as Json[];
    expect(
      results.map((r) => [r.name, r.template, r.share, r.recipients, r.accepted, r.sent, r.delivered, r.read]),
    ).toEqual([
      ['Name', 'promo', 50, counts[0], counts[0], counts[0], counts[0], counts[0]],
      ['Code', 'promo_b', 50, counts[1], counts[1], counts[1], counts[1], counts[1]],
    ]);
    expect(results.map((r) => r.failed)).toEqual([0, 0]);
    expect(results[0].cost + results[1].cost).toBeCloseTo(view.money.spent, 6);
    expect(results[0].cost).toBeGreaterThan(0);
  });

  it('tracks the links of a campaign: a redirect for all, one click per recipient for people only', async () => {
    const { gateway, platform, app, factory, user } = suite;
    await factory.sendableTemplate(app.id, { name: 'promo_link', category: 'MARKETING', body: 'Sale: {{1}}' });
    const hooks = new Endpoint();
    await hooks.open();
    try {
      const sub = await fetch(`${platform.urls.api}/api/v1/subscriptions`, {
        method: 'POST',
        headers: { authorization: user.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ url: hooks.url(), events: ['message.clicked'] }),
      });
      expect(sub.status).toBe(201);
      hooks.secret = ((await sub.json()) as Json).secret as string;

      const id = (linksId = (
        await createCampaign(gateway, {
          name: 'Links',
          template: 'promo_link',
          params: ['https://shop.example/sale?c={{contact.external_id}}'],
          audience: { contact_ids: ['ext:ab-1', 'ext:ab-2', 'ext:ab-3'] },
          channels: ['whatsapp'],
          track_links: true,
        })
      ).id as string);
      await launchCampaign(gateway, id);
      await untilCampaignState(gateway, id, 'completed');
      const sent = (await suite.whatsappSends(app.phoneNumberId!)) as unknown as {
        body: { to: string; template: Json };
      }[];
      const tokenOf = (externalId: string) => {
        const phone = rows.find((r) => r.external_id === externalId)!.identities.whatsapp!;
        const s = sent.find((x) => x.body.template.name === 'promo_link' && x.body.to.replace(/^\+/, '') === phone)!;
        const text = JSON.stringify(s.body.template.components);
        // The message carries a short link on the gateway, not the URL, and nothing of the contact.
        expect(text).not.toContain('shop.example');
        expect(text).not.toContain(externalId);
        return /\/l\/([A-Za-z0-9_-]{22})/.exec(text)![1];
      };
      const follow = (token: string, ua: string, method = 'GET') =>
        fetch(`${platform.urls.gateway}/l/${token}`, { method, redirect: 'manual', headers: { 'user-agent': ua } });

      // Previews and HEAD requests of ab-2's link: redirected, never counted.
      const second = tokenOf('ab-2');
      for (const ua of ['TelegramBot (like TwitterBot)', 'WhatsApp/2.23.20.0 A', 'facebookexternalhit/1.1']) {
        const res = await follow(second, ua);
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toBe('https://shop.example/sale?c=ab-2');
      }
      expect((await follow(second, BROWSER, 'HEAD')).status).toBe(302);

      // ab-1 clicks twice: one click, one event.
      const first = tokenOf('ab-1');
      for (let i = 0; i < 2; i++) {
        const res = await follow(first, BROWSER);
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toBe('https://shop.example/sale?c=ab-1');
      }
      const report = await recipientsReport(gateway, id);
      const messageOf = (ext: string) => report.find((r) => r.external_id === ext)!.message_id as string;
      const event = await waitFor(
        () => hooks.events.find((e) => e.type === 'message.clicked') ?? false,
        30_000,
        'message.clicked at the subscriber',
      );
      expect(event.data).toMatchObject({
        message_id: messageOf('ab-1'),
        campaign_id: id,
        url: 'https://shop.example/sale?c=ab-1',
      });
      const view = await waitFor(
        async () => {
          const v = await campaignView(gateway, id);
          return v.clicked === 1 ? v : false;
        },
        30_000,
        'the click in the report',
      );
      expect(view.track_links).toBe(true);
      // ab-3 clicks after: its click is recorded after every earlier request was.
      await follow(tokenOf('ab-3'), BROWSER);
      await waitFor(async () => (await campaignView(gateway, id)).clicked === 2, 30_000, 'the second click');
      const clicked = hooks.events.filter((e) => e.type === 'message.clicked').map((e) => e.data.message_id);
      await waitFor(
        () => hooks.events.filter((e) => e.type === 'message.clicked').length >= 2,
        30_000,
        'the second message.clicked',
      );
      expect(
        hooks.events
          .filter((e) => e.type === 'message.clicked')
          .map((e) => e.data.message_id)
          .sort(),
      ).toEqual([messageOf('ab-1'), messageOf('ab-3')].sort());
      expect(clicked).not.toContain(messageOf('ab-2'));

      // A token the gateway never made: 404, saying nothing.
      for (const token of ['AAAAAAAAAAAAAAAAAAAAAA', 'x', second.slice(0, 21) + (second.endsWith('A') ? 'B' : 'A')]) {
        const res = await follow(token, BROWSER);
        expect(res.status).toBe(404);
        const body = (await res.json()) as Json;
        expect(body.detail).toBeUndefined();
        expect(res.headers.get('location')).toBeNull();
      }
    } finally {
      await hooks.close();
    }
  });

  it("filters an audience by engagement with another campaign, never by another account's", async () => {
    const { gateway, platform, factory } = suite;
    const audienceOf = async (engagement: Json) => {
      const c = await createCampaign(gateway, {
        name: 'Engaged',
        audience: { filter: { lists: ['ab'], engagement } },
        channels: ['whatsapp'],
      });
      const res = await gateway('POST', `/v1/campaigns/${c.id}/estimate`);
      return res;
    };
    const externalsOf = async (engagement: Json) => {
      const c = await createCampaign(gateway, {
        name: 'Engaged',
        audience: { filter: { lists: ['ab'], engagement } },
        channels: ['whatsapp'],
      });
      await launchCampaign(gateway, c.id as string);
      const report = await recipientsReport(gateway, c.id as string);
      await gateway('POST', `/v1/campaigns/${c.id}/cancel`);
      return report.map((r) => r.external_id as string).sort();
    };

    // Clicked: the two who clicked a tracked link of the links campaign.
    expect(await externalsOf({ campaign_id: linksId, did: 'clicked', within_days: 7 })).toEqual(['ab-1', 'ab-3']);
    // Received and read: every message of the links campaign was read (the sandbox reads them all).
    await waitFor(
      async () => (await audienceOf({ campaign_id: linksId, did: 'read', within_days: 30 })).body.audience === 3,
      30_000,
      'the links campaign read by its three recipients',
    );
    expect(await externalsOf({ campaign_id: linksId, did: 'received' })).toEqual(['ab-1', 'ab-2', 'ab-3']);
    const rest = (await externalsOf({ campaign_id: linksId, did: 'not_received', within_days: 30 })).length;
    expect(rest).toBe(37);
    expect((await audienceOf({ campaign_id: abId, did: 'not_received' })).body.audience).toBe(0);

    // `replied` is taken (its count: test/e2e/campaign-replies.test.ts): nobody replied to the links campaign.
    expect((await audienceOf({ campaign_id: linksId, did: 'replied', within_days: 7 })).body.audience).toBe(0);
    // A bad engagement is a 400 naming its fields.
    const bad = await gateway('POST', '/v1/campaigns', {
      name: 'Bad',
      template: 'promo',
      audience: { filter: { engagement: { campaign_id: 'x', did: 'opened', within_days: 0 } } },
      channels: ['whatsapp'],
    });
    expect(bad.status).toBe(400);
    expect((bad.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'audience.filter.engagement.campaign_id',
      'audience.filter.engagement.did',
      'audience.filter.engagement.within_days',
    ]);

    // Another account's campaign, or none: 404, and nothing of it.
    const other = await factory.user('system', { balance: 1 });
    const otherGateway = gatewayClient(
      platform.urls.gateway,
      await gatewayAccount(platform.infra.databaseUrl, 'other shop', other.userId),
    );
    const theirs = await otherGateway('POST', '/v1/campaigns', {
      name: 'Theirs',
      template: 'promo',
      audience: { list: 'ab' },
      channels: ['whatsapp'],
    });
    expect(theirs.status).toBe(201);
    for (const campaignId of [theirs.body.id as string, '0190b3a4-7c2e-7000-8000-000000000099']) {
      const res = await audienceOf({ campaign_id: campaignId, did: 'not_received' });
      expect(res.status).toBe(404);
      expect(res.body.audience).toBeUndefined();
      expect(res.text).not.toContain('Theirs');
    }
  });
});
