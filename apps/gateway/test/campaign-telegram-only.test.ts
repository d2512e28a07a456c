import { waitFor } from '@app/testing';
import { ApiFactory } from '../../../test/support/factories';
import {
  campaignView,
  gatewayAccount,
  GatewayCall,
  gatewayClient,
  launchCampaign,
  recipientsReport,
  untilCampaignState,
} from '../../../test/support/campaigns';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxBot, registerSandboxNumber, sandboxControl } from '../../../test/support/sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TELEGRAM_PRICE = 0.01;
const CATEGORIES = ['MARKETING', 'MARKETING_LITE', 'UTILITY', 'SERVICE', 'AUTHENTICATION'];
const OFFER = {
  type: 'buttons',
  text: 'Hi {{1}}, 20% off this week?',
  buttons: [
    { id: 'yes', title: 'Yes please' },
    { id: 'no', title: 'No thanks' },
  ],
};

/**
 * An account with no WhatsApp app runs campaigns on Telegram alone, through every service and the
 * emulators: it creates a bot template with buttons, sends it, runs a campaign of it whose
 * customers press its buttons, and sees the presses in the campaign's report; the estimate prices
 * Telegram and knows no tier.
 */
describe('campaigns of a Telegram-only account', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gateway: GatewayCall;
  let bot: { id: number; token: string };
  const chats = ['610001', '610002', '610003'];

  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json & Json[]>(platform.urls.sandbox, path, body)).body;
  const sentTo = async (chat: string) =>
    ((await sandbox(`telegram/calls?bot_id=${bot.id}`)) as unknown as Json[]).filter(
      (c) => c.method === 'sendMessage' && String(c.params.chat_id) === chat && c.outcome === 'accepted',
    );
  const keyboardOf = (call: Json): Json =>
    typeof call.params.reply_markup === 'string' ? JSON.parse(call.params.reply_markup) : call.params.reply_markup;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-campaign-telegram-only',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: {
        SANDBOX_STATUS_DELAY_MS: '50',
        CAMPAIGN_TICK_MS: '100',
        CHANNEL_MESSAGE_PRICES: JSON.stringify({
          telegram: Object.fromEntries(CATEGORIES.map((c) => [c, TELEGRAM_PRICE])),
          max: Object.fromEntries(CATEGORIES.map((c) => [c, 0])),
        }),
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system', { balance: 10 });
    gateway = gatewayClient(
      platform.urls.gateway,
      await gatewayAccount(platform.infra.databaseUrl, 'tg shop', user.userId),
    );
    bot = await registerSandboxBot(platform.urls.sandbox, 'telegram');
    expect((await gateway('POST', '/v1/connections', { channel: 'telegram', bot_token: bot.token })).status).toBe(201);
    for (const [k, chat] of chats.entries()) {
      const res = await gateway('POST', '/v1/contacts', {
        external_id: `tg-${k + 1}`,
        name: `Reader ${k + 1}`,
        identities: { telegram: chat },
        lists: ['readers'],
      });
      expect(res.status).toBe(201);
    }
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  it('creates a template with buttons, sends it, runs a campaign of it and counts the presses', async () => {
    const created = await gateway('POST', '/v1/templates', {
      name: 'weekly_offer',
      language: 'en',
      category: 'MARKETING',
      content: OFFER,
    });
    expect([created.status, created.body.params, created.body.source]).toEqual([201, 1, 'bot']);

    // The template sent on its own: the customer gets the filled text with both buttons.
    const single = await gateway('POST', '/v1/messages', {
      channel: 'telegram',
      to: '619999',
      template: 'weekly_offer',
      params: ['Sam'],
    });
    expect(single.status).toBe(202);
    const first = await waitFor(async () => (await sentTo('619999'))[0] ?? false, 30_000, 'the single send', 100);
    expect(first.params.text).toBe('Hi Sam, 20% off this week?');
    expect(
      keyboardOf(first)
        .inline_keyboard.flat()
        .map((b: Json) => b.callback_data),
    ).toEqual(['yes', 'no']);

    // No WhatsApp app: the estimate prices Telegram and has no tier to wait for.
    const campaign = await gateway('POST', '/v1/campaigns', {
      name: 'Weekly offer',
      template: 'weekly_offer',
      params: ['{{contact.name}}'],
      audience: { list: 'readers' },
      channels: ['telegram'],
    });
    expect(campaign.status).toBe(201);
    const id = campaign.body.id as string;
    const estimate = await gateway('POST', `/v1/campaigns/${id}/estimate`);
    expect(estimate.status).toBe(200);
    expect(estimate.body).toMatchObject({
      audience: 3,
      recipients: 3,
      channels: { telegram: { recipients: 3, price: TELEGRAM_PRICE, cost: 0.03 } },
      cost: { total: 0.03, covered_recipients: 3 },
    });
    expect(estimate.body.limits.map((l: Json) => l.limit)).not.toContain('tier');

    await launchCampaign(gateway, id);
    await untilCampaignState(gateway, id, 'completed');
    const report = await waitFor(
      async () => {
        const r = await recipientsReport(gateway, id);
        return r.every((x) => ['sent', 'delivered', 'read'].includes(x.status)) ? r : false;
      },
      30_000,
      'every recipient sent',
      100,
    );
    expect(report.map((r) => [r.external_id, r.channel])).toEqual([
      ['tg-1', 'telegram'],
      ['tg-2', 'telegram'],
      ['tg-3', 'telegram'],
    ]);
    for (const [k, chat] of chats.entries()) {
      const calls = await sentTo(chat);
      expect(calls.map((c) => c.params.text)).toEqual([`Hi Reader ${k + 1}, 20% off this week?`]);
    }

    // Two customers press "Yes please", one "No thanks"; Telegram delivers one press twice.
    const press = (chat: string, data: string, title: string) =>
      sandbox('telegram/inbound', { bot: bot.token, from: chat, kind: 'button', callback_data: data, text: title });
    const again = await press(chats[0], 'yes', 'Yes please');
    await sandbox('telegram/inbound', { bot: bot.token, from: chats[0], repeat_update_id: again.update_id });
    await press(chats[1], 'no', 'No thanks');
    await press(chats[2], 'yes', 'Yes please');
    const view = await waitFor(
      async () => {
        const v = await campaignView(gateway, id);
        return v.replied === 3 ? v : false;
      },
      30_000,
      'three presses in the report',
      100,
    );
    expect(view.replies_by_button).toEqual([
      { id: 'yes', title: 'Yes please', count: 2, rate: 0.6667 },
      { id: 'no', title: 'No thanks', count: 1, rate: 0.3333 },
    ]);
    const replies = await recipientsReport(gateway, id);
    expect(replies.map((r) => [r.external_id, r.reply?.kind, r.reply?.id])).toEqual([
      ['tg-1', 'button', 'yes'],
      ['tg-2', 'button', 'no'],
      ['tg-3', 'button', 'yes'],
    ]);
  });

  it('runs a content campaign of buttons to Telegram and counts its presses', async () => {
    const created = await gateway('POST', '/v1/campaigns', {
      name: 'Poll',
      content: { type: 'buttons', text: 'Open on Sunday?', buttons: OFFER.buttons },
      audience: { list: 'readers' },
      channels: ['telegram'],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const estimate = await gateway('POST', `/v1/campaigns/${id}/estimate`);
    expect(estimate.body).toMatchObject({ recipients: 3, excluded: { window_closed: 0 } });
    await launchCampaign(gateway, id);
    await untilCampaignState(gateway, id, 'completed');
    for (const chat of chats) {
      const calls = await waitFor(
        async () => {
          const got = (await sentTo(chat)).filter((c) => c.params.text === 'Open on Sunday?');
          return got.length ? got : false;
        },
        30_000,
        `the content sent to ${chat}`,
        100,
      );
      expect(calls).toHaveLength(1);
      expect(
        keyboardOf(calls[0])
          .inline_keyboard.flat()
          .map((b: Json) => b.text),
      ).toEqual(['Yes please', 'No thanks']);
    }
    await sandbox('telegram/inbound', {
      bot: bot.token,
      from: chats[1],
      kind: 'button',
      callback_data: 'no',
      text: 'No thanks',
    });
    const view = await waitFor(
      async () => {
        const v = await campaignView(gateway, id);
        return v.replied === 1 ? v : false;
      },
      30_000,
      'the press in the report',
      100,
    );
    expect(view.replies_by_button).toEqual([{ id: 'no', title: 'No thanks', count: 1, rate: 0.3333 }]);
    expect(view.content).toEqual({ type: 'buttons', text: 'Open on Sunday?', buttons: OFFER.buttons });
  });

  it('sends each recipient its content variant and reports the variants', async () => {
    const texts = ['Variant one', 'Variant two'];
    const created = await gateway('POST', '/v1/campaigns', {
      name: 'Split',
      content: { type: 'text', text: 'unused' },
      variants: texts.map((text, i) => ({ name: `V${i + 1}`, content: { type: 'text', text }, share: 50 })),
      audience: { list: 'readers' },
      channels: ['telegram'],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await launchCampaign(gateway, id);
    await untilCampaignState(gateway, id, 'completed');
    const report = await recipientsReport(gateway, id);
    for (const [k, chat] of chats.entries()) {
      const variant = report.find((r) => r.external_id === `tg-${k + 1}`)!.variant as string;
      const text = texts[Number(variant.slice(1)) - 1];
      await waitFor(
        async () => (await sentTo(chat)).some((c) => c.params.text === text),
        30_000,
        `${text} to ${chat}`,
        100,
      );
      expect((await sentTo(chat)).filter((c) => texts.includes(c.params.text)).map((c) => c.params.text)).toEqual([
        text,
      ]);
    }
    const view = await campaignView(gateway, id);
    expect((view.variant_results as Json[]).map((v) => [v.name, v.template, v.recipients])).toEqual([
      ['V1', null, report.filter((r) => r.variant === 'V1').length],
      ['V2', null, report.filter((r) => r.variant === 'V2').length],
    ]);
  });

  it('a content campaign on WhatsApp: an open window gets the content, a closed one the fallback or nothing', async () => {
    const user = await factory.user('system', { balance: 10 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'come_back', category: 'UTILITY', body: 'We miss you {{1}}' });
    const wa = gatewayClient(
      platform.urls.gateway,
      await gatewayAccount(platform.infra.databaseUrl, 'wa shop', user.userId),
    );
    expect((await wa('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
    const phones = { open: '79970000001', closed: '79970000002' };
    for (const [ext, phone] of Object.entries(phones)) {
      const res = await wa('POST', '/v1/contacts', {
        external_id: ext,
        name: ext,
        identities: { whatsapp: phone },
        lists: ['wa'],
      });
      expect(res.status).toBe(201);
    }
    // The customer at `open` writes: its 24-hour window opens.
    await sandbox('whatsapp/inbound', { phone_number_id: app.phoneNumberId, from: phones.open, text: 'Hi there' });
    const sentTo = async (phone: string) =>
      ((await sandbox(`whatsapp/messages?phone_number_id=${app.phoneNumberId}`)) as unknown as Json[])
        .filter((m) => m.body.to === phone)
        .map((m) => m.body.type);
    const run = async (definition: Json, expected: Json) => {
      const created = await wa('POST', '/v1/campaigns', {
        name: 'Reopen',
        content: { type: 'buttons', text: 'We are open again: visit?', buttons: OFFER.buttons },
        audience: { list: 'wa' },
        channels: ['whatsapp'],
        ...definition,
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const estimate = await waitFor(
        async () => {
          const e = await wa('POST', `/v1/campaigns/${id}/estimate`);
          return e.body.channels?.whatsapp?.recipients === expected.whatsapp ? e.body : false;
        },
        30_000,
        'the open window in the estimate',
        200,
      );
      expect(estimate.excluded.window_closed).toBe(expected.windowClosed);
      await launchCampaign(wa, id);
      await untilCampaignState(wa, id, 'completed');
      return recipientsReport(wa, id);
    };

    // Without a fallback: the closed window is skipped, the open one gets the buttons.
    const plain = await run({}, { whatsapp: 1, windowClosed: 1 });
    expect(plain.map((r) => [r.external_id, r.status === 'skipped' ? r.skip_reason : 'sent'])).toEqual([
      ['open', 'sent'],
      ['closed', 'window_closed'],
    ]);
    await waitFor(
      async () => (await sentTo(phones.open)).includes('interactive'),
      30_000,
      'the buttons on WhatsApp',
      100,
    );
    expect(await sentTo(phones.closed)).toEqual([]);

    // With a fallback template: the closed window gets the template, with its params.
    const fallback = await run(
      { fallback_template: 'come_back', params: ['{{contact.name}}'] },
      { whatsapp: 2, windowClosed: 0 },
    );
    expect(fallback.map((r) => [r.external_id, r.status === 'skipped' ? r.skip_reason : 'sent'])).toEqual([
      ['open', 'sent'],
      ['closed', 'sent'],
    ]);
    await waitFor(async () => (await sentTo(phones.closed)).includes('template'), 30_000, 'the fallback template', 100);
    expect(await sentTo(phones.closed)).toEqual(['template']);

    // A bot template alone does not reach WhatsApp: a campaign sending it there is refused naming the channel.
    const botOnly = await wa('POST', '/v1/templates', {
      name: 'bot_only',
      language: 'en',
      content: { type: 'text', text: 'Hi {{1}}' },
    });
    expect(botOnly.status).toBe(201);
    const onWhatsApp = await wa('POST', '/v1/campaigns', {
      name: 'Bot only',
      template: 'bot_only',
      params: ['{{contact.name}}'],
      audience: { list: 'wa' },
      channels: ['whatsapp', 'telegram'],
    });
    for (const action of ['estimate', 'launch']) {
      const res = await wa('POST', `/v1/campaigns/${onWhatsApp.body.id}/${action}`);
      expect([action, res.status, res.body.type, res.body.channel]).toEqual([
        action,
        422,
        '/problems/template-not-on-channel',
        'whatsapp',
      ]);
    }
  });

  it('refuses a template the account has in no form, and WhatsApp alone without an app, with 422', async () => {
    const unknown = await gateway('POST', '/v1/campaigns', {
      name: 'Nothing',
      template: 'no_such_template',
      audience: { list: 'readers' },
      channels: ['telegram'],
    });
    expect(unknown.status).toBe(201);
    for (const action of ['estimate', 'launch']) {
      const res = await gateway('POST', `/v1/campaigns/${unknown.body.id}/${action}`);
      expect([action, res.status, res.body.type]).toEqual([action, 422, '/problems/no-template-source']);
    }
    const onWhatsApp = await gateway('POST', '/v1/campaigns', {
      name: 'WhatsApp only',
      template: 'weekly_offer',
      params: ['{{contact.name}}'],
      audience: { list: 'readers' },
      channels: ['whatsapp'],
    });
    const refused = await gateway('POST', `/v1/campaigns/${onWhatsApp.body.id}/estimate`);
    expect([refused.status, refused.body.type]).toEqual([422, '/problems/no-template-source']);
    expect(refused.body.detail).toContain('whatsapp');
    expect((await campaignView(gateway, onWhatsApp.body.id as string)).state).toBe('draft');
  });
});
