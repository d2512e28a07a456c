import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import { Client } from 'pg';
import { CAMPAIGNS_RPC } from '@app/contracts';
import { ApiFactory } from '../../support/factories';
import {
  campaignLedger,
  CampaignLedger,
  ContactRow,
  GatewayCall,
  gatewayAccount,
  gatewayClient,
  importContacts,
  recipientsReport,
} from '../../support/campaigns';
import { registerSandboxBot, registerSandboxNumber } from '../../support/sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * The campaign's audience: 1-400 on WhatsApp and Telegram (every 25th number is not on WhatsApp,
 * so Telegram carries it), 401-480 on Telegram only, 481-490 opted out of marketing, 491-500 only
 * on MAX (not a channel of the campaign). 480 are sent to; 20 are the planned exclusions.
 */
function contact(i: number): ContactRow {
  const whatsapp = i % 25 === 0 ? `7994${pad(i, 3)}3333` : `7993${pad(i, 7)}`;
  const telegram = String(730_000 + i);
  const identities: ContactRow['identities'] =
    i <= 400 || (i > 480 && i <= 490) ? { whatsapp, telegram } : i <= 480 ? { telegram } : { max: String(930_000 + i) };
  return {
    external_id: `chaos-${i}`,
    name: `Chaos ${i}`,
    identities,
    lists: ['chaos'],
    ...(i > 480 && i <= 490 ? { consent: { marketing: 'opted_out' as const } } : {}),
  };
}

export const CAMPAIGN_AUDIENCE = 500;
export const CAMPAIGN_EXCLUDED = { opted_out: 10, no_identity: 10 };
const ELIGIBLE = CAMPAIGN_AUDIENCE - CAMPAIGN_EXCLUDED.opted_out - CAMPAIGN_EXCLUDED.no_identity;

/** What the campaign left once the platform settled. */
export interface CampaignOutcome {
  state: string;
  /** Why the report could not be read, if it could not. */
  reportError: string | null;
  /** What the api's tables say of the runner's work on it: its last tick, and recipients claimed now. */
  runner: {
    state: string;
    lastTickSecondsAgo: number | null;
    claimedNow: number;
    /**
     * Pending recipients per first channel: how far off the soonest is due (s; negative: overdue),
     * and how long ago one was last given back by a runner (claimed, then released unsent).
     */
    pending: Record<string, { n: number; dueIn: number; releasedAgo: number }>;
    whatsappWaitSeconds: number | null;
    /** The api's own answer to campaigns.get over NATS (what the gateway would relay), abridged. */
    apiAnswer: string;
    /** Sessions holding a transaction open (what they ran last, how long ago), which would hold recipients locked. */
    openTransactions: string[];
    /** Recipients the runner's claim could take now, and how many of them another session holds locked. */
    claimable: { due: number; locked: number };
  };
  ledger: CampaignLedger;
  /** Recipients with more than one message, by seq. */
  sentTwice: number[];
  /** Skip reasons in the report. */
  skipped: Record<string, number>;
  /** Its counts (GET /v1/campaigns/{id}) against the messages in the api's tables. */
  countsMatch: boolean;
  counts: Json;
  /** Chats or phones that received the campaign more than once at the channel. */
  reachedTwice: string[];
  seconds: number | null;
}

/**
 * A campaign of a fourth business (a gateway account with a WhatsApp number and a bot) that runs
 * through the chaos at a modest rate, so that kills and outages land in the middle of its sends.
 */
export class ChaosCampaign {
  id = '';
  private launchedAt = 0;

  private constructor(
    private readonly call: GatewayCall,
    private readonly databaseUrl: string,
    private readonly natsUrl: string,
    private readonly sandboxUrl: string,
    readonly userId: string,
    private readonly phoneNumberId: string,
    private readonly botId: number,
  ) {}

  /** Sets the business up (app, template, account, connections, 500 contacts) and stores the draft. */
  static async prepare(
    urls: { gateway: string; sandbox: string },
    databaseUrl: string,
    natsUrl: string,
    factory: ApiFactory,
    rate: number,
  ): Promise<ChaosCampaign> {
    const user = await factory.user('system', { balance: 1000 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    await registerSandboxNumber(urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'promo', category: 'MARKETING', body: 'Hello {{1}}' });
    const call = gatewayClient(urls.gateway, await gatewayAccount(databaseUrl, 'chaos campaign', user.userId));
    const linked = await call('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id });
    if (linked.status !== 201) throw new Error(`whatsapp connection refused: ${linked.status} ${linked.text}`);
    const bot = await registerSandboxBot(urls.sandbox, 'telegram');
    const connected = await call('POST', '/v1/connections', { channel: 'telegram', bot_token: bot.token });
    if (connected.status !== 201) throw new Error(`bot connection refused: ${connected.status} ${connected.text}`);
    await importContacts(
      call,
      Array.from({ length: CAMPAIGN_AUDIENCE }, (_, k) => contact(k + 1)),
    );
    const campaign = new ChaosCampaign(
      call,
      databaseUrl,
      natsUrl,
      urls.sandbox,
      user.userId,
      app.phoneNumberId!,
      bot.id,
    );
    const created = await call('POST', '/v1/campaigns', {
      name: 'Chaos',
      template: 'promo',
      language: 'en',
      params: ['{{contact.name}}'],
      audience: { list: 'chaos' },
      channels: ['whatsapp', 'telegram'],
      rate,
    });
    if (created.status !== 201) throw new Error(`campaign refused: ${created.status} ${created.text}`);
    campaign.id = created.body.id as string;
    return campaign;
  }

  async launch(): Promise<void> {
    const res = await this.call('POST', `/v1/campaigns/${this.id}/launch`);
    if (res.status !== 200) throw new Error(`launch refused: ${res.status} ${res.text}`);
    this.launchedAt = Date.now();
  }

  /** The campaign as GET answers it; null while the gateway or the api cannot answer. */
  async view(): Promise<Json | null> {
    try {
      const res = await this.call('GET', `/v1/campaigns/${this.id}`);
      return res.status === 200 ? res.body : null;
    } catch {
      return null;
    }
  }

  /** Completed, every message of it final enough to hold nothing. */
  async settled(): Promise<boolean> {
    const view = await this.view();
    if (view?.state !== 'completed') return false;
    return (await campaignLedger(this.databaseUrl, this.id)).held === 0;
  }

  async outcome(): Promise<CampaignOutcome> {
    const view = (await this.view()) ?? {};
    const ledger = await campaignLedger(this.databaseUrl, this.id);
    const skipped: Record<string, number> = {};
    let reportError: string | null = null;
    try {
      for (const r of await recipientsReport(this.call, this.id, 'status=skipped')) {
        skipped[r.skip_reason as string] = (skipped[r.skip_reason as string] ?? 0) + 1;
      }
    } catch (err) {
      reportError = String(err);
    }
    const counts = (view.counts ?? {}) as Json;
    const sent = ['queued', 'sent', 'delivered', 'read', 'failed'].reduce((n, s) => n + Number(counts[s] ?? 0), 0);
    const wa = (await (
      await fetch(`${this.sandboxUrl}/_sandbox/whatsapp/messages?phone_number_id=${this.phoneNumberId}`)
    ).json()) as { body: { to: string } }[];
    const tg = (await (await fetch(`${this.sandboxUrl}/_sandbox/telegram/calls?bot_id=${this.botId}`)).json()) as {
      outcome: string;
      params: { chat_id?: unknown };
    }[];
    const reached = new Map<string, number>();
    for (const to of [
      ...wa.map((s) => s.body.to),
      ...tg
        .filter((c) => c.outcome === 'accepted' && c.params.chat_id !== undefined)
        .map((c) => String(c.params.chat_id)),
    ])
      reached.set(to, (reached.get(to) ?? 0) + 1);
    const runner = await this.runnerState();
    // The gateway answers times in Unix seconds.
    const completedAt = typeof view.completed_at === 'number' ? view.completed_at * 1000 : null;
    return {
      state: String(view.state ?? `${runner.state} (GET failed)`),
      reportError,
      runner,
      ledger,
      sentTwice: [...ledger.messagesPerSeq.entries()].filter(([, n]) => n > 1).map(([seq]) => seq),
      skipped,
      counts,
      countsMatch:
        Number(counts.pending) === 0 &&
        Number(counts.skipped) === CAMPAIGN_AUDIENCE - ELIGIBLE &&
        sent === ledger.messages &&
        ledger.messages === ELIGIBLE,
      reachedTwice: [...reached.entries()].filter(([, n]) => n > 1).map(([to, n]) => `${to}×${n}`),
      seconds: completedAt ? Math.round((completedAt - this.launchedAt) / 1000) : null,
    };
  }

  private async runnerState(): Promise<CampaignOutcome['runner']> {
    const db = new Client({ connectionString: this.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{
        state: string;
        ago: number | null;
        claimed: number;
        account_id: string;
        wait: number | null;
      }>(
        `SELECT c.state, c.account_id, extract(epoch FROM now() - c.last_tick_at)::float8 AS ago,
                extract(epoch FROM c.whatsapp_wait_until - now())::float8 AS wait,
                (SELECT count(*)::int FROM api.campaign_recipients r
                  WHERE r.campaign_id = c.id AND r.state = 'pending' AND r.claimed_until > now()) AS claimed
           FROM api.campaigns c WHERE c.id = $1`,
        [this.id],
      );
      const pending = await db.query<{ channel: string; n: number; due_in: number; released_ago: number }>(
        `SELECT coalesce(first_channel, '-') AS channel, count(*)::int AS n,
                round(extract(epoch FROM min(next_at) - now()))::int AS due_in,
                round(extract(epoch FROM now() - max(updated_at)))::int AS released_ago
           FROM api.campaign_recipients WHERE campaign_id = $1 AND state = 'pending' GROUP BY 1`,
        [this.id],
      );
      const due = `SELECT seq FROM api.campaign_recipients
                    WHERE campaign_id = $1 AND state = 'pending' AND next_at <= now()
                      AND (claimed_until IS NULL OR claimed_until < now())`;
      const [all] = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${due}) d`, [this.id])).rows;
      await db.query('BEGIN');
      const [free] = (
        await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${due} FOR UPDATE SKIP LOCKED) d`, [this.id])
      ).rows;
      await db.query('ROLLBACK');
      return {
        claimable: { due: all.n, locked: all.n - free.n },
        state: rows[0].state,
        lastTickSecondsAgo: rows[0].ago === null ? null : Math.round(rows[0].ago),
        claimedNow: rows[0].claimed,
        pending: Object.fromEntries(
          pending.rows.map((r) => [r.channel, { n: r.n, dueIn: r.due_in, releasedAgo: r.released_ago }]),
        ),
        whatsappWaitSeconds: rows[0].wait === null ? null : Math.round(rows[0].wait),
        apiAnswer: await this.askApi({ account_id: rows[0].account_id, id: this.id }),
        openTransactions: (
          await db.query<{ line: string }>(
            `SELECT state || ' ' || round(extract(epoch FROM now() - xact_start))::text || 's: ' || left(query, 160) AS line
               FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
                AND now() - xact_start > interval '5 seconds'`,
          )
        ).rows.map((r) => r.line),
      };
    } finally {
      await db.end();
    }
  }

  /** Asks the api for the campaign over NATS as the gateway does, bypassing the gateway: its raw reply. */
  private async askApi(ref: { account_id: string; id: string }): Promise<string> {
    const nc = await connect({ servers: this.natsUrl, name: 'chaos-campaign-probe' });
    try {
      const reply = await nc.request(
        CAMPAIGNS_RPC.get,
        JSON.stringify({ pattern: CAMPAIGNS_RPC.get, data: ref, id: randomUUID() }),
        { timeout: 5000 },
      );
      return reply.string().slice(0, 300);
    } catch (err) {
      return `no answer: ${String(err)}`;
    } finally {
      await nc.close();
    }
  }

  /** The line of the suite's table. */
  static describe(o: CampaignOutcome): string {
    return (
      `${o.state}${o.seconds !== null ? ` after ${o.seconds} s` : ''}; ${o.ledger.messages} messages for ${ELIGIBLE} eligible ` +
      `(recipients with two: ${o.sentTwice.length}, reached twice at a channel: ${o.reachedTwice.length}); ` +
      `recipients ${JSON.stringify(o.ledger.recipientStates)}, skipped ${JSON.stringify(o.skipped)}; ` +
      `counts ${o.countsMatch ? 'match' : `differ: ${JSON.stringify(o.counts)}`}; holds left ${o.ledger.held}` +
      (o.state === 'completed'
        ? ''
        : `; runner's last tick ${o.runner.lastTickSecondsAgo} s ago, ${o.runner.claimedNow} recipients claimed, ` +
          `pending ${JSON.stringify(o.runner.pending)}, WhatsApp wait ${o.runner.whatsappWaitSeconds} s; ` +
          `transactions open over 5 s: ${JSON.stringify(o.runner.openTransactions)}; ` +
          `claimable now ${o.runner.claimable.due} (${o.runner.claimable.locked} locked by another session); ` +
          `the api answers campaigns.get: ${o.runner.apiAnswer}`) +
      (o.reportError ? `; report: ${o.reportError}` : '')
    );
  }
}

export const CAMPAIGN_ELIGIBLE = ELIGIBLE;
