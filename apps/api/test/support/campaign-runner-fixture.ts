import { randomUUID } from 'node:crypto';
import { CAMPAIGNS_RPC, CampaignDefinition, CampaignRecipientInput, CampaignView } from '@app/contracts';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, RpcClient } from '@app/messaging';
import { ApiFactory, TestUser } from '../../../../test/support/factories';
import { Platform, startPlatform } from '../../../../test/support/platform';
import { CampaignRunner } from '../../src/campaigns/campaign-runner';
import type { AppEntity } from '../../src/wa-apps/app.entity';

/** A campaign event as a subscriber hears it. */
export interface CampaignEventSeen {
  type: string;
  data: { campaign_id: string; state: string; reason: string | null; counts: Record<string, number> };
}

/** What the campaign runner suite runs on, set before its first case. */
export interface CampaignRunnerFixture {
  platform: Platform;
  factory: ApiFactory;
  rpc: RpcClient;
  user: TestUser;
  runner: CampaignRunner;
  nats: NatsConnection;
  /** Every campaign event published, in order. */
  events: CampaignEventSeen[];
  accountId: string;
}

/**
 * The api on the real database and broker for the campaign runner suite (ticks run on demand), and
 * the small factories its cases share: recipients, a launched campaign, its messages and rows.
 */
export function campaignRunnerFixture(suite: string) {
  const f = { events: [] as CampaignEventSeen[], accountId: randomUUID() } as CampaignRunnerFixture;

  beforeAll(async () => {
    f.platform = await startPlatform({
      suite,
      services: ['api'],
      env: { CAMPAIGN_TICK_MS: '60000', HOUSEKEEPING_INTERVAL_MS: '0' },
    });
    f.factory = await ApiFactory.connect(f.platform.infra.databaseUrl);
    f.rpc = new RpcClient({ url: f.platform.infra.natsUrl, prefix: f.platform.infra.prefix, name: 'campaigns-test' });
    f.user = await f.factory.user('system', { balance: 100 });
    f.runner = f.platform.apps.api!.get(CampaignRunner);
    f.nats = await connectNats({ url: f.platform.infra.natsUrl, name: 'campaigns-test-events' });
    for (const type of ['campaign.started', 'campaign.paused', 'campaign.completed'] as const) {
      f.nats.subscribe(f.platform.infra.topology.eventSubject(type), {
        callback: (_err, msg) => {
          f.events.push(msg.json());
        },
      });
    }
  });

  afterAll(async () => {
    await f.nats?.close();
    await f.rpc?.onApplicationShutdown();
    await f.factory?.close();
    await f.platform?.stop();
  });

  const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
    f.factory.dataSource.query(query, params) as Promise<T[]>;
  const phone = (i: number) => `4475${String(i).padStart(7, '0')}`;
  const recipient = (seq: number, over: Partial<CampaignRecipientInput> = {}): CampaignRecipientInput => ({
    seq,
    contact_id: `contact-${seq}`,
    external_id: `ext-${seq}`,
    time_zone: 'UTC',
    route: [{ channel: 'whatsapp', to: phone(seq) }],
    params: [`Name ${seq}`],
    ...over,
  });

  /** A draft with its recipients loaded (two pages) and launched. */
  async function launched(
    app: AppEntity,
    recipients: CampaignRecipientInput[],
    over: Partial<CampaignDefinition> = {},
  ): Promise<CampaignView> {
    const definition: CampaignDefinition = {
      name: `Campaign ${Math.random().toString(36).slice(2, 8)}`,
      template: 'camp_tpl',
      params: ['{{contact.name}}'],
      audience: { list: 'customers' },
      channels: ['whatsapp'],
      ...over,
    };
    const draft = await f.rpc.call(CAMPAIGNS_RPC.create, {
      account_id: f.accountId,
      user_id: f.user.userId,
      definition,
    });
    expect(draft.state).toBe('draft');
    const half = Math.ceil(recipients.length / 2);
    const ref = { account_id: f.accountId, id: draft.id };
    await f.rpc.call(CAMPAIGNS_RPC.load, { ...ref, reset: true, recipients: recipients.slice(0, half) });
    await f.rpc.call(CAMPAIGNS_RPC.load, { ...ref, reset: false, recipients: recipients.slice(half) });
    return f.rpc.call(CAMPAIGNS_RPC.launch, { ...ref, template_app_id: app.id, total: recipients.length });
  }

  const get = (id: string) => f.rpc.call(CAMPAIGNS_RPC.get, { account_id: f.accountId, id });
  const messagesOf = (id: string) =>
    sql<{ id: string; recipient: string }>(`SELECT id, recipient FROM messages WHERE campaign_id = $1`, [id]);
  const rowsOf = (id: string) =>
    sql<{ seq: number; state: string; skip_reason: string | null; message_id: string | null; next_at: Date }>(
      `SELECT seq, state, skip_reason, message_id, next_at FROM campaign_recipients WHERE campaign_id = $1 ORDER BY seq`,
      [id],
    );
  /** Ticks until the campaign is in `state` (each tick a little apart, so pacing credits time). */
  async function tickUntil(id: string, state: string, ticks = 40): Promise<CampaignView> {
    for (let i = 0; i < ticks; i++) {
      await f.runner.tick();
      const view = await get(id);
      if (view.state === state) return view;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`campaign ${id} did not become ${state}`);
  }
  async function sendableApp(opts: Parameters<ApiFactory['activeApp']>[1] = {}): Promise<AppEntity> {
    const app = await f.factory.activeApp(f.user.userId, opts);
    await f.factory.sendableTemplate(app.id, { name: 'camp_tpl', body: 'Hello {{1}}', category: 'UTILITY' });
    return app;
  }

  return { f, sql, phone, recipient, launched, get, messagesOf, rowsOf, tickUntil, sendableApp };
}
