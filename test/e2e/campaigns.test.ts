import { sleep, waitFor } from '@app/testing';
import {
  campaignLedger,
  campaignView,
  chargedOf,
  ContactRow,
  createCampaign,
  importContacts,
  launchCampaign,
  perAddress,
  recipientsCsv,
  recipientsReport,
  shiftDay,
  untilCampaignState,
  gatewayAccount,
  gatewayClient,
} from '../support/campaigns';
import { TELEGRAM_PRICE, useCampaignsPlatform, WHATSAPP_PRICE } from '../support/campaigns-platform';
import { registerSandboxNumber } from '../support/sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const pad = (n: number, width: number) => String(n).padStart(width, '0');
/** A recipient's sends are counted in the report once it left `pending`/`skipped`. */
const sentCount = (counts: Json) =>
  ['queued', 'sent', 'delivered', 'read', 'failed'].reduce((n, s) => n + (counts[s] as number), 0);
const hhmm = (d: Date) => `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}`;

/**
 * Campaigns as a business sees them, on the real services and emulators: an estimate that names
 * exactly who is excluded and what it costs, a launch that sends each recipient one message (a
 * number not on WhatsApp carried by Telegram), a report and CSV that match what the channels
 * received and what the balance paid, pause and resume, quiet hours in each recipient's zone, and a
 * WhatsApp tier that spreads the audience over two days.
 */
describe('campaigns end to end', () => {
  const suite = useCampaignsPlatform();
  const { balance, whatsappSends, telegramSends, endpoint } = suite;
  let { platform, factory, user, app, gateway } = suite;
  beforeAll(() => ({ platform, factory, user, app, gateway } = suite));

  describe('an audience of 300 over WhatsApp then Telegram', () => {
    /**
     * 1-250 on both channels (every 16th number is not on WhatsApp: the sandbox refuses `...3333`
     * with 131026), 251-270 on Telegram only, 271-285 opted out of marketing on WhatsApp only,
     * 286-295 opted out of marketing everywhere, 296-300 only on MAX (no connection, not a channel
     * of the campaign).
     */
    const contact = (i: number): ContactRow => {
      const whatsapp = i % 16 === 0 && i <= 250 ? `7991${pad(i, 3)}3333` : `7990${pad(i, 7)}`;
      const identities: ContactRow['identities'] =
        i <= 250 || (i > 270 && i <= 295)
          ? { whatsapp, telegram: String(700_000 + i) }
          : i <= 270
            ? { telegram: String(700_000 + i) }
            : { max: String(900_000 + i) };
      return {
        external_id: `sp-${i}`,
        name: `Person ${i}`,
        identities,
        lists: ['spring'],
        ...(i > 285 && i <= 295 ? { consent: { marketing: 'opted_out' as const } } : {}),
      };
    };
    const rows = Array.from({ length: 300 }, (_, k) => contact(k + 1));
    const byExternal = new Map(rows.map((r) => [r.external_id, r]));
    const notOnWhatsApp = rows.filter((r) => r.identities.whatsapp?.endsWith('3333'));
    let id: string;
    let report: Json[];

    it('estimates exactly who is excluded, each channel and what it costs', async () => {
      const imported = await importContacts(gateway, rows);
      expect(imported).toMatchObject({ created: 300, rejected: 0 });
      for (let i = 271; i <= 285; i++) {
        const res = await gateway('PUT', `/v1/contacts/ext:sp-${i}/consent`, {
          purpose: 'marketing',
          state: 'opted_out',
          channel: 'whatsapp',
        });
        expect(res.status).toBe(200);
      }
      id = (
        await createCampaign(gateway, {
          name: 'Spring sale',
          audience: { list: 'spring' },
          channels: ['whatsapp', 'telegram'],
        })
      ).id as string;

      const estimate = await gateway('POST', `/v1/campaigns/${id}/estimate`);
      expect(estimate.status).toBe(200);
      const e = estimate.body;
      expect(e).toMatchObject({
        audience: 300,
        recipients: 285,
        excluded: { opted_out: 10, no_identity: 5, duplicate: 0, missing_param: 0 },
        channels: {
          whatsapp: { recipients: 250, price: WHATSAPP_PRICE },
          telegram: { recipients: 35, price: TELEGRAM_PRICE },
        },
        cost: { currency: 'USD', balance: 100, covered_recipients: 285 },
      });
      expect(e.channels.whatsapp.cost).toBeCloseTo(250 * WHATSAPP_PRICE, 6);
      expect(e.channels.telegram.cost).toBeCloseTo(35 * TELEGRAM_PRICE, 6);
      expect(e.cost.total).toBeCloseTo(250 * WHATSAPP_PRICE + 35 * TELEGRAM_PRICE, 6);
      expect(e.channels.max).toBeUndefined();
      expect(['pacing', 'rate']).toContain(e.time.limited_by);
      // A dry run: nothing sent, nothing held.
      expect(await balance()).toBe(100);
      expect(await whatsappSends(app.phoneNumberId!, 'all')).toHaveLength(0);
      expect((await campaignView(gateway, id)).state).toBe('draft');
    });

    it('sends each of the 285 one message, moving the numbers not on WhatsApp to Telegram', async () => {
      const before = await balance();
      const launched = await launchCampaign(gateway, id);
      expect(['running', 'completed']).toContain(launched.state);
      expect(launched.recipients).toBe(300);
      const done = await untilCampaignState(gateway, id, 'completed');
      expect(done.counts.pending).toBe(0);
      expect(done.counts.skipped).toBe(15);

      // Settled: every WhatsApp message read (the sandbox's plan), every Telegram one sent, no hold left.
      report = await waitFor(
        async () => {
          const r = await recipientsReport(gateway, id);
          const settled = r.every(
            (x) =>
              x.status === 'skipped' ||
              (x.channel === 'whatsapp' && x.status === 'read') ||
              (x.channel === 'telegram' && x.status === 'sent'),
          );
          return settled && (await campaignLedger(platform.infra.databaseUrl, id)).held === 0 ? r : false;
        },
        60_000,
        'every message of the campaign final and charged',
        250,
      );

      expect(report.map((r) => r.seq)).toEqual(Array.from({ length: 300 }, (_, k) => k + 1));
      const skipped = report.filter((r) => r.status === 'skipped');
      expect(skipped.map((r) => [r.external_id, r.skip_reason])).toEqual([
        ...Array.from({ length: 10 }, (_, k) => [`sp-${286 + k}`, 'opted_out']),
        ...Array.from({ length: 5 }, (_, k) => [`sp-${296 + k}`, 'no_identity']),
      ]);
      const sent = report.filter((r) => r.status !== 'skipped');
      expect(sent).toHaveLength(285);
      expect(new Set(sent.map((r) => r.message_id)).size).toBe(285);
      const expectedChannel = (r: Json) => {
        const c = byExternal.get(r.external_id as string)!;
        const n = Number(String(r.external_id).slice(3));
        return n <= 250 && !c.identities.whatsapp!.endsWith('3333') ? 'whatsapp' : 'telegram';
      };
      expect(sent.filter((r) => r.channel !== expectedChannel(r)).map((r) => r.external_id)).toEqual([]);
      const onWhatsApp = sent.filter((r) => r.channel === 'whatsapp');
      const onTelegram = sent.filter((r) => r.channel === 'telegram');
      expect([onWhatsApp.length, onTelegram.length]).toEqual([250 - notOnWhatsApp.length, 35 + notOnWhatsApp.length]);

      // What the channels received, one for one with the report.
      const waReceived = perAddress((await whatsappSends(app.phoneNumberId!)).map((s) => s.body.to));
      expect(waReceived).toEqual(
        perAddress(onWhatsApp.map((r) => byExternal.get(r.external_id as string)!.identities.whatsapp!)),
      );
      const refused = (await whatsappSends(app.phoneNumberId!, 'all')).filter((s) => s.outcome === 'rejected');
      expect(perAddress(refused.map((s) => s.body.to))).toEqual(
        perAddress(notOnWhatsApp.map((r) => r.identities.whatsapp!)),
      );
      const tgReceived = perAddress((await telegramSends()).map((c) => String(c.params.chat_id)));
      expect(tgReceived).toEqual(
        perAddress(onTelegram.map((r) => byExternal.get(r.external_id as string)!.identities.telegram!)),
      );

      // The api's own record: one message per recipient, the campaign's id on each.
      const ledger = await campaignLedger(platform.infra.databaseUrl, id);
      expect([...ledger.messagesPerSeq.values()].filter((n) => n !== 1)).toEqual([]);
      expect(ledger.messages).toBe(285);
      expect(ledger.recipientStates).toEqual({ queued: 285, skipped: 15 });

      // The campaign's counts are the report's, and the balance moved by exactly what was charged.
      const view = await campaignView(gateway, id);
      const tally: Json = { pending: 0, queued: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0 };
      for (const r of report) tally[r.status as string] += 1;
      expect(view.counts).toEqual(tally);
      expect(view.channels_used).toEqual({ whatsapp: onWhatsApp.length, telegram: onTelegram.length });
      const charged = await chargedOf(gateway, new Set(sent.map((r) => r.message_id as string)));
      expect(charged.found).toBe(285);
      expect(view.money.held).toBe(0);
      expect(view.money.spent).toBeCloseTo(charged.total, 6);
      expect(before - (await balance())).toBeCloseTo(charged.total, 6);
      expect(charged.total).toBeGreaterThan(0);
    });

    it('serves the same report as CSV', async () => {
      const csv = await recipientsCsv(gateway, id);
      expect(csv).toHaveLength(300);
      const columns = [
        'seq',
        'contact_id',
        'external_id',
        'status',
        'skip_reason',
        'channel',
        'message_id',
        'failure_code',
        'queued_at',
        'updated_at',
        'next_attempt_at',
        'variant',
        'replied_at',
        'reply_kind',
        'reply_id',
        'reply_title',
        'reply_text',
      ];
      expect(Object.keys(csv[0])).toEqual(columns);
      const asText = (v: unknown) => (v === null || v === undefined ? '' : String(v));
      expect(csv.map((r) => [r.seq, r.external_id, r.status, r.skip_reason, r.channel, r.message_id])).toEqual(
        report.map((r) => [r.seq, r.external_id, r.status, r.skip_reason, r.channel, r.message_id].map(asText)),
      );
    });

    it('tells the subscriber the campaign started and completed; its messages’ events carry the campaign', async () => {
      const started = await waitFor(
        () => endpoint.events.find((e) => e.type === 'campaign.started' && e.data.campaign_id === id) ?? false,
        30_000,
        'campaign.started at the subscriber',
      );
      expect(started).toMatchObject({ channel: null, app_id: null, data: { state: 'running', name: 'Spring sale' } });
      const completed = await waitFor(
        () => endpoint.events.find((e) => e.type === 'campaign.completed' && e.data.campaign_id === id) ?? false,
        30_000,
        'campaign.completed at the subscriber',
      );
      expect(completed.data).toMatchObject({ state: 'completed', counts: { pending: 0, skipped: 15 } });
      // One message.sent per recipient (on the channel that carried it), each with the campaign's id.
      const addresses = new Set(
        report
          .filter((r) => r.status !== 'skipped')
          .map((r) => {
            const c = byExternal.get(r.external_id as string)!;
            return r.channel === 'whatsapp' ? c.identities.whatsapp! : c.identities.telegram!;
          }),
      );
      const sentEvents = await waitFor(
        () => {
          const got = endpoint.events.filter(
            (e) => e.type === 'message.sent' && addresses.has(String(e.data.recipient)),
          );
          return new Set(got.map((e) => e.data.recipient)).size === addresses.size ? got : false;
        },
        30_000,
        'message.sent of every recipient at the subscriber',
        100,
      );
      expect(sentEvents.filter((e) => e.data.campaign_id !== id)).toEqual([]);
      const refusedOnWhatsApp = endpoint.events.filter(
        (e) => e.type === 'message.failed' && String(e.data.recipient).endsWith('3333'),
      );
      expect(refusedOnWhatsApp.length).toBeGreaterThan(0);
      expect(refusedOnWhatsApp.filter((e) => e.data.campaign_id !== id)).toEqual([]);
    });
  });

  it('pause stops new sends within a second; resume finishes the campaign, each recipient once', async () => {
    const chats = Array.from({ length: 40 }, (_, k) => String(710_000 + k));
    await importContacts(
      gateway,
      chats.map((chat, k) => ({
        external_id: `slow-${k}`,
        name: `Slow ${k}`,
        identities: { telegram: chat },
        lists: ['slow'],
      })),
    );
    const { id } = await createCampaign(gateway, {
      name: 'Slow',
      audience: { list: 'slow' },
      channels: ['telegram'],
      rate: 5,
    });
    await launchCampaign(gateway, id as string);
    await waitFor(
      async () => sentCount((await campaignView(gateway, id as string)).counts) >= 3,
      10_000,
      'the first sends',
    );
    const paused = await gateway('POST', `/v1/campaigns/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ state: 'paused', pause_reason: 'requested' });
    await sleep(1000);
    const atOneSecond = sentCount((await campaignView(gateway, id as string)).counts);
    const sandboxAtOneSecond = (await telegramSends()).filter((c) => chats.includes(String(c.params.chat_id))).length;
    await sleep(3000);
    const view = await campaignView(gateway, id as string);
    expect(sentCount(view.counts)).toBe(atOneSecond);
    expect(view.counts.pending).toBe(40 - atOneSecond);
    expect(atOneSecond).toBeLessThan(40);
    expect((await telegramSends()).filter((c) => chats.includes(String(c.params.chat_id))).length).toBe(
      sandboxAtOneSecond,
    );
    const resumed = await gateway('POST', `/v1/campaigns/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.state).toBe('running');
    // Resuming a running campaign is not a transition.
    const again = await gateway('POST', `/v1/campaigns/${id}/resume`);
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('/problems/campaign-state');

    await untilCampaignState(gateway, id as string, 'completed', 30_000);
    const report = await recipientsReport(gateway, id as string);
    expect(report.filter((r) => !r.message_id)).toEqual([]);
    expect(new Set(report.map((r) => r.message_id)).size).toBe(40);
    await waitFor(
      async () => (await telegramSends()).filter((c) => chats.includes(String(c.params.chat_id))).length >= 40,
      10_000,
      'the 40 chats reached',
    );
    expect(
      perAddress((await telegramSends()).map((c) => String(c.params.chat_id)).filter((c) => chats.includes(c))),
    ).toEqual(perAddress(chats));
  });

  it('holds a recipient inside quiet hours in its own zone until they end; sends one outside them', async () => {
    const now = new Date();
    // Quiet from an hour ago to two hours from now, in UTC: night for a contact in UTC, day in Dhaka (UTC+6).
    const start = hhmm(new Date(now.getTime() - 3600_000));
    const end = hhmm(new Date(now.getTime() + 2 * 3600_000));
    const endsAt = Math.floor((now.getTime() + 2 * 3600_000) / 60_000) * 60_000;
    for (const [ext, zone, chat] of [
      ['q-night', 'UTC', '720001'],
      ['q-day', 'Asia/Dhaka', '720002'],
    ]) {
      const res = await gateway('POST', '/v1/contacts', {
        external_id: ext,
        name: ext,
        identities: { telegram: chat },
        time_zone: zone,
      });
      expect(res.status).toBe(201);
    }
    const { id } = await createCampaign(gateway, {
      name: 'Quiet',
      audience: { contact_ids: ['ext:q-night', 'ext:q-day'] },
      channels: ['telegram'],
      quiet_hours: { start, end },
    });
    await launchCampaign(gateway, id as string);
    const report = await waitFor(
      async () => {
        const r = await recipientsReport(gateway, id as string);
        return r.find((x) => x.external_id === 'q-day')?.status === 'sent' ? r : false;
      },
      20_000,
      'the day contact sent',
      100,
    );
    // Another second of ticks: the night one is still held.
    await sleep(1000);
    const night = (await recipientsReport(gateway, id as string)).find((x) => x.external_id === 'q-night')!;
    expect(night).toMatchObject({ status: 'pending', message_id: null });
    expect(Math.abs((night.next_attempt_at as number) * 1000 - endsAt)).toBeLessThan(60_000);
    expect(report.find((x) => x.external_id === 'q-day')).toMatchObject({ channel: 'telegram' });
    const chats = (await telegramSends()).map((c) => String(c.params.chat_id));
    expect(chats.filter((c) => c === '720002')).toHaveLength(1);
    expect(chats.filter((c) => c === '720001')).toHaveLength(0);
    expect((await campaignView(gateway, id as string)).state).toBe('running');

    const cancelled = await gateway('POST', `/v1/campaigns/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    const after = (await recipientsReport(gateway, id as string)).find((x) => x.external_id === 'q-night')!;
    expect(after).toMatchObject({ status: 'skipped', skip_reason: 'cancelled' });
  });

  it('a WhatsApp tier of 250 sends 250 today and the other 50 once the window frees them', async () => {
    const tierApp = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, tierApp);
    await factory.sendableTemplate(tierApp.id, { name: 'promo', category: 'MARKETING', body: 'Hello {{1}}' });
    const tiered = gatewayClient(
      platform.urls.gateway,
      await gatewayAccount(platform.infra.databaseUrl, 'tiered', user.userId),
    );
    expect((await tiered('POST', '/v1/connections', { channel: 'whatsapp', app_id: tierApp.id })).status).toBe(201);
    const phones = Array.from({ length: 300 }, (_, k) => `7992${pad(k + 1, 7)}`);
    await importContacts(
      tiered,
      phones.map((phone, k) => ({
        external_id: `t-${k}`,
        name: `T ${k}`,
        identities: { whatsapp: phone },
        lists: ['all'],
      })),
    );
    const { id } = await createCampaign(tiered, { name: 'Tiered', audience: { list: 'all' }, channels: ['whatsapp'] });
    const estimate = await tiered('POST', `/v1/campaigns/${id}/estimate`);
    expect(estimate.body).toMatchObject({ recipients: 300, time: { limited_by: 'tier' } });
    expect(estimate.body.time.seconds).toBeGreaterThanOrEqual(24 * 3600);

    const launchedAt = Date.now();
    await launchCampaign(tiered, id as string);
    const waiting = await waitFor(
      async () => {
        const c = await campaignView(tiered, id as string);
        return sentCount(c.counts) === 250 && c.counts.pending === 50 ? c : false;
      },
      30_000,
      '250 sent and 50 waiting for the tier',
      100,
    );
    expect(waiting.state).toBe('running');
    // Nothing more goes today.
    await sleep(1000);
    const pending = await recipientsReport(tiered, id as string, 'status=pending');
    expect(pending).toHaveLength(50);
    // Each is due when the tier frees a place, about a day on (checked at the end, after the rest of the path).
    const notDueTomorrow = pending
      .filter((r) => {
        const due = (r.next_attempt_at as number) * 1000;
        return !(due > launchedAt + 23.9 * 3600_000 && due < Date.now() + 24 * 3600_000 + 60_000);
      })
      .map((r) => `${r.seq}: ${r.next_attempt_at}`);
    // The queue paces the number: the 250 reach the channel over a few seconds, and no more after them.
    await waitFor(
      async () => (await whatsappSends(tierApp.phoneNumberId!)).length >= 250,
      20_000,
      'the 250 at the channel',
      200,
    );
    await sleep(500);
    expect(await whatsappSends(tierApp.phoneNumberId!)).toHaveLength(250);

    // A day later: the window's recipients and the campaign's waits moved 24 hours back.
    await shiftDay(factory, tierApp.id, id as string);
    await untilCampaignState(tiered, id as string, 'completed', 30_000);
    const ledger = await campaignLedger(platform.infra.databaseUrl, id as string);
    expect(ledger.messages).toBe(300);
    expect([...ledger.messagesPerSeq.values()].filter((n) => n !== 1)).toEqual([]);
    // Completed means every recipient was handed to the queue; the queue paces the last ones to the channel.
    await waitFor(
      async () => (await whatsappSends(tierApp.phoneNumberId!)).length >= phones.length,
      20_000,
      'every recipient at the channel',
      200,
    );
    const received = perAddress((await whatsappSends(tierApp.phoneNumberId!)).map((s) => s.body.to));
    expect(received).toEqual(perAddress(phones));
    expect({ notDueTomorrow }).toEqual({ notDueTomorrow: [] });
  });
});
