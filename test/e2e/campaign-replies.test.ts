import { Client } from 'pg';
import { waitFor } from '@app/testing';
import {
  campaignView,
  ContactRow,
  createCampaign,
  importContacts,
  launchCampaign,
  recipientsCsv,
  recipientsReport,
  untilCampaignState,
} from '../support/campaigns';
import { useCampaignsPlatform } from '../support/campaigns-platform';
import { sandboxControl } from '../support/sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Replies to a campaign as a business sees them, on the real services and emulators: a customer's
 * answer on the channel counted once for its recipient (however often the channel delivers it), a
 * button press naming the campaign's message counted with its button, each variant's replies, the
 * reply and the variant of each recipient in the report (JSON and CSV), and an audience of exactly
 * the repliers through the `replied` engagement filter.
 */
describe('campaign replies end to end', () => {
  const suite = useCampaignsPlatform('e2e-campaign-replies');
  const rows: ContactRow[] = Array.from({ length: 6 }, (_, k) => ({
    external_id: `rp-${k + 1}`,
    name: `Replier ${k + 1}`,
    identities: { whatsapp: `7996${String(k + 1).padStart(7, '0')}` },
    lists: ['rp'],
  }));
  const phoneOf = (ext: string) => rows.find((r) => r.external_id === ext)!.identities.whatsapp!;

  beforeAll(async () => {
    await suite.factory.sendableTemplate(suite.app.id, { name: 'promo_r', category: 'MARKETING', body: 'Hey {{1}}!' });
    expect(await importContacts(suite.gateway, rows)).toMatchObject({ created: 6, rejected: 0 });
  });

  it('counts each reply once, buttons by their id, per variant and per recipient, and filters the repliers', async () => {
    const { gateway, platform, app } = suite;
    const inbound = async (body: Json) => {
      const res = await sandboxControl<Json>(platform.urls.sandbox, 'whatsapp/inbound', {
        phone_number_id: app.phoneNumberId,
        ...body,
      });
      expect(res.status).toBeLessThan(300);
    };
    const created = await createCampaign(gateway, {
      name: 'Replies',
      audience: { list: 'rp' },
      channels: ['whatsapp'],
      variants: [
        { name: 'Name', template: 'promo', params: ['{{contact.name}}'], share: 50 },
        { name: 'Other', template: 'promo_r', params: ['{{contact.external_id}}'], share: 50 },
      ],
    });
    const id = created.id as string;
    await launchCampaign(gateway, id);
    await untilCampaignState(gateway, id, 'completed');
    const sentReport = await waitFor(
      async () => {
        const r = await recipientsReport(gateway, id);
        return r.every((x) => x.status === 'read') ? r : false;
      },
      60_000,
      'every message of the campaign read',
      250,
    );
    const recipientOf = (ext: string) => sentReport.find((r) => r.external_id === ext)!;
    // Before any reply: nobody replied, and every recipient names its variant.
    expect(sentReport.map((r) => [r.replied_at, r.reply])).toEqual(sentReport.map(() => [null, null]));
    expect(sentReport.every((r) => r.variant === 'Name' || r.variant === 'Other')).toBe(true);
    const before = await campaignView(gateway, id);
    expect([before.replied, before.replies_by_button]).toEqual([0, []]);

    // The WhatsApp id of rp-2's message, which its button press names.
    const db = new Client({ connectionString: platform.infra.databaseUrl });
    await db.connect();
    let wamid: string;
    try {
      const { rows: found } = await db.query<{ provider_message_id: string }>(
        `SELECT provider_message_id FROM api.messages WHERE id = $1`,
        [recipientOf('rp-2').message_id],
      );
      wamid = found[0].provider_message_id;
    } finally {
      await db.end();
    }
    expect(wamid).toBeTruthy();

    // rp-1 answers; WhatsApp delivers the same answer twice, then rp-1 writes again: one reply.
    await inbound({ from: phoneOf('rp-1'), text: 'Tell me more', message_id: 'wamid.rp1answer' });
    await inbound({ from: phoneOf('rp-1'), text: 'Tell me more', message_id: 'wamid.rp1answer' });
    await inbound({ from: phoneOf('rp-1'), text: 'Anyone there?' });
    // rp-2 presses a button of its message.
    await inbound({ from: phoneOf('rp-2'), kind: 'button_reply', text: 'Yes please', context_message_id: wamid });
    // Somebody who was not sent the campaign writes: nobody's reply.
    await inbound({ from: '79960009999', text: 'Hello?' });

    const view = await waitFor(
      async () => {
        const v = await campaignView(gateway, id);
        return v.replied === 2 && v.replies_by_button.length === 1 ? v : false;
      },
      30_000,
      'both replies in the report',
      250,
    );
    expect(view.replies_by_button).toEqual([{ id: 'btn-1', title: 'Yes please', count: 1, rate: 0.1667 }]);
    const report = await recipientsReport(gateway, id);
    const byExt = new Map(report.map((r) => [r.external_id as string, r]));
    expect(byExt.get('rp-1')!.reply).toEqual({ kind: 'text', id: null, title: null, text: 'Tell me more' });
    expect(byExt.get('rp-2')!.reply).toEqual({ kind: 'button', id: 'btn-1', title: 'Yes please', text: 'Yes please' });
    expect(typeof byExt.get('rp-1')!.replied_at).toBe('number');
    expect(Number.isInteger(byExt.get('rp-1')!.replied_at)).toBe(true);
    for (const ext of ['rp-3', 'rp-4', 'rp-5', 'rp-6']) expect(byExt.get(ext)!.replied_at).toBeNull();

    // Each variant's replies: the repliers of its recipients.
    const repliedIn = (name: string) => ['rp-1', 'rp-2'].filter((e) => byExt.get(e)!.variant === name).length;
    expect((view.variant_results as Json[]).map((v) => [v.name, v.replied])).toEqual([
      ['Name', repliedIn('Name')],
      ['Other', repliedIn('Other')],
    ]);

    // The CSV carries the variant and the reply in their own columns.
    const csv = await recipientsCsv(gateway, id);
    const line = csv.find((r) => r.external_id === 'rp-2')!;
    expect([line.variant, line.reply_kind, line.reply_id, line.reply_title, line.reply_text]).toEqual([
      byExt.get('rp-2')!.variant,
      'button',
      'btn-1',
      'Yes please',
      'Yes please',
    ]);
    expect(line.replied_at).toBe(String(byExt.get('rp-2')!.replied_at));

    // An audience of the repliers: exactly rp-1 and rp-2.
    const repliers = await createCampaign(gateway, {
      name: 'Repliers',
      template: 'promo',
      params: ['again'],
      audience: { filter: { lists: ['rp'], engagement: { campaign_id: id, did: 'replied', within_days: 7 } } },
      channels: ['whatsapp'],
    });
    await launchCampaign(gateway, repliers.id as string);
    const chosen = await recipientsReport(gateway, repliers.id as string);
    await gateway('POST', `/v1/campaigns/${repliers.id}/cancel`);
    expect(chosen.map((r) => r.external_id).sort()).toEqual(['rp-1', 'rp-2']);
  });
});
