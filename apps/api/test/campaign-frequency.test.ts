import { CAMPAIGNS_RPC, CampaignSettings, FrequencyRules } from '@app/contracts';
import { rpcProblem } from '@app/testing';
import { Clock } from '@app/server';
import { MessagePrices } from '../src/billing/message-prices';
import { CampaignPassCostMeter } from '../src/campaigns/campaign-pass-cost';
import { ConversationsService } from '../src/conversations/conversations.service';
import { CampaignRunner } from '../src/campaigns/campaign-runner';
import { CampaignsRepository } from '../src/campaigns/campaigns.repository';
import { CampaignsService } from '../src/campaigns/campaigns.service';
import { FrequencyRulesService } from '../src/campaigns/frequency-rules';
import { ApiConfig } from '../src/config';
import { GatewaySendsService } from '../src/sending';
import type { AppEntity } from '../src/wa-apps/app.entity';
import { campaignRunnerFixture } from './support/campaign-runner-fixture';

/**
 * The frequency rules of marketing campaigns on the real database and broker: the account's
 * settings over request/reply, the estimate's dry run, and the send-time check that two runners
 * racing, two campaigns and a crash between the check and the commit never get past.
 */
describe('campaign frequency rules', () => {
  const { f, recipient, launched, get, messagesOf, rowsOf } = campaignRunnerFixture('campaign-frequency');
  let app: AppEntity;

  beforeAll(async () => {
    app = await f.factory.activeApp(f.user.userId, { message_limit: 'TIER_10K' });
    for (const name of ['promo_a', 'promo_b', 'promo_c'])
      await f.factory.sendableTemplate(app.id, { name, body: 'Hello {{1}}', category: 'MARKETING' });
  });

  const settings = (s: Partial<CampaignSettings> | Record<string, unknown>) =>
    f.rpc.call(CAMPAIGNS_RPC.updateSettings, { user_id: f.user.userId, settings: s });
  const recipients = (from: number, n: number) => Array.from({ length: n }, (_, i) => recipient(from + i));
  const dryRun = (template: string, contacts: number[], frequency: FrequencyRules | null = null) =>
    f.rpc.call(CAMPAIGNS_RPC.frequency, {
      user_id: f.user.userId,
      category: 'MARKETING',
      template,
      frequency,
      contact_ids: contacts.map((seq) => `contact-${seq}`),
    });

  /** Ticks two runners (two api replicas) at once until every campaign named completes. */
  async function runAll(ids: string[]): Promise<void> {
    const api = f.platform.apps.api!;
    const second = new CampaignRunner(
      api.get(CampaignsRepository),
      api.get(CampaignsService),
      api.get(GatewaySendsService),
      api.get(MessagePrices),
      api.get(Clock),
      api.get(ApiConfig),
      api.get(FrequencyRulesService),
      api.get(ConversationsService),
      new CampaignPassCostMeter(),
    );
    for (let i = 0; i < 60; i++) {
      await Promise.all([f.runner.tick(), second.tick()]);
      const states = await Promise.all(ids.map(async (id) => (await get(id)).state));
      if (states.every((s) => s === 'completed')) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('the campaigns did not complete');
  }

  it('keeps the settings, answers the defaults first, and refuses bad ones naming each field with nothing changed', async () => {
    expect(await f.rpc.call(CAMPAIGNS_RPC.settings, { user_id: f.user.userId })).toEqual({
      frequency_cap: null,
      recent_template_days: null,
    });
    expect(await settings({ frequency_cap: { messages: 2, period_hours: 24 } })).toEqual({
      frequency_cap: { messages: 2, period_hours: 24 },
      recent_template_days: null,
    });
    expect(await settings({ recent_template_days: 7 })).toEqual({
      frequency_cap: { messages: 2, period_hours: 24 },
      recent_template_days: 7,
    });
    const bad = await rpcProblem(
      settings({ frequency_cap: { messages: 0, period_hours: 1.5 }, recent_template_days: 'x', cap: 1 }),
    );
    expect(bad).toMatchObject({ status: 400, slug: 'validation-error' });
    const fields = (bad as unknown as { errors: { field: string }[] }).errors.map((e) => e.field).sort();
    expect(fields).toEqual(['cap', 'frequency_cap.messages', 'frequency_cap.period_hours', 'recent_template_days']);
    expect(await f.rpc.call(CAMPAIGNS_RPC.settings, { user_id: f.user.userId })).toEqual({
      frequency_cap: { messages: 2, period_hours: 24 },
      recent_template_days: 7,
    });
    // A campaign's override is checked by the definition's rules.
    const refused = await rpcProblem(
      f.rpc.call(CAMPAIGNS_RPC.create, {
        account_id: f.accountId,
        user_id: f.user.userId,
        definition: {
          name: 'x',
          template: 'promo_a',
          params: [],
          audience: { list: 'a' },
          channels: ['whatsapp'],
          frequency: { frequency_cap: { messages: -1, period_hours: 24 } },
        },
      }),
    );
    expect(refused).toMatchObject({ status: 400 });
    expect(JSON.stringify(refused)).toContain('frequency.frequency_cap.messages');
    expect(await settings({ frequency_cap: null, recent_template_days: null })).toEqual({
      frequency_cap: null,
      recent_template_days: null,
    });
  });

  it('caps each contact across two campaigns run by two runners at once: one message each, the rest skipped as frequency_cap', async () => {
    await settings({ frequency_cap: { messages: 1, period_hours: 24 }, recent_template_days: null });
    const a = await launched(app, recipients(100, 30), { template: 'promo_a' });
    const b = await launched(app, recipients(100, 30), { template: 'promo_b' });
    await runAll([a.id, b.id]);
    const sent = [...(await messagesOf(a.id)), ...(await messagesOf(b.id))];
    expect(sent).toHaveLength(30);
    expect(new Set(sent.map((m) => m.recipient)).size).toBe(30);
    const skipped = [...(await rowsOf(a.id)), ...(await rowsOf(b.id))].filter((r) => r.state === 'skipped');
    expect(skipped).toHaveLength(30);
    expect(new Set(skipped.map((r) => r.skip_reason))).toEqual(new Set(['frequency_cap']));
    // The estimate's dry run counts the same contacts as capped now.
    const { excluded } = await dryRun('promo_c', [100, 101, 999]);
    expect(excluded).toEqual(['frequency_cap', 'frequency_cap', null]);
    // Not marketing: the rules do not hold.
    const utility = await f.rpc.call(CAMPAIGNS_RPC.frequency, {
      user_id: f.user.userId,
      category: 'UTILITY',
      template: 'promo_c',
      frequency: null,
      contact_ids: ['contact-100'],
    });
    expect(utility.excluded).toEqual([null]);
  });

  it("a campaign's override beats the account's setting", async () => {
    // The account caps at one per day; contacts 100-109 had theirs in the case before.
    const c = await launched(app, recipients(100, 10), {
      template: 'promo_c',
      frequency: { frequency_cap: { messages: 3, period_hours: 1 } },
    });
    await runAll([c.id]);
    expect(await messagesOf(c.id)).toHaveLength(10);
    expect((await dryRun('promo_c', [100], { frequency_cap: null })).excluded).toEqual([null]);
  });

  it('skips a contact who had the template within the recent-template days', async () => {
    await settings({ frequency_cap: null, recent_template_days: 7 });
    // 200-204 get promo_a now; then a promo_a campaign to 200-209 reaches only 205-209.
    const first = await launched(app, recipients(200, 5), { template: 'promo_a' });
    await runAll([first.id]);
    expect((await dryRun('promo_a', [200, 205])).excluded).toEqual(['recent_template', null]);
    expect((await dryRun('promo_b', [200])).excluded).toEqual([null]);
    const again = await launched(app, recipients(200, 10), { template: 'promo_a' });
    await runAll([again.id]);
    const rows = await rowsOf(again.id);
    expect(rows.filter((r) => r.skip_reason === 'recent_template').map((r) => r.seq)).toEqual([
      200, 201, 202, 203, 204,
    ]);
    expect(await messagesOf(again.id)).toHaveLength(5);
    await settings({ recent_template_days: null });
  });

  it('a runner that dies between the check and the send keeps the place it reserved: no other campaign passes the cap', async () => {
    await settings({ frequency_cap: { messages: 1, period_hours: 24 } });
    const rules = f.platform.apps.api!.get(FrequencyRulesService);
    const send = {
      userId: f.user.userId,
      campaignId: '00000000-0000-4000-8000-000000000001',
      seq: 1,
      contactId: 'contact-300',
      template: 'promo_a',
      category: 'MARKETING',
      override: null,
    };
    // The check passed and the place is reserved; the send never comes (the process is gone).
    void rules.around(send, () => new Promise<never>(() => undefined));
    for (let i = 0; i < 50 && (await dryRun('promo_a', [300])).excluded[0] === null; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect((await dryRun('promo_a', [300, 301])).excluded).toEqual(['frequency_cap', null]);
    const c = await launched(app, recipients(300, 2), { template: 'promo_b' });
    await runAll([c.id]);
    const rows = await rowsOf(c.id);
    expect(rows.map((r) => [r.seq, r.state, r.skip_reason])).toEqual([
      [300, 'skipped', 'frequency_cap'],
      [301, 'queued', null],
    ]);
    await settings({ frequency_cap: null });
  });
});
