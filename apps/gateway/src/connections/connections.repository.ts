import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, Not } from 'typeorm';
import { GATEWAY_SEND_CHANNELS } from '@app/contracts';
import { BatchedLookup, isPgError, PG_ERROR } from '@app/database';
import { ConnectionChannel, ConnectionEntity } from './connection.entity';

export class ConnectionTakenError extends Error {
  constructor(readonly constraint: string) {
    super(`connection conflicts with ${constraint}`);
  }
}

/** A connection as a callback to it needs it, with its account's api user (null: none). */
export type CallbackConnection = Pick<
  ConnectionEntity,
  'id' | 'accountId' | 'channel' | 'state' | 'credential' | 'inboundSecretHash'
> & { userId: string | null };

/** The only place that queries connections. */
@Injectable()
export class ConnectionsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(ConnectionEntity);
  }

  async insert(row: Omit<ConnectionEntity, 'createdAt' | 'updatedAt'>): Promise<ConnectionEntity> {
    return (await this.insertCapped(row, Number.MAX_SAFE_INTEGER))!;
  }

  /**
   * Inserts unless the account already has `maxLive` live connections of the row's channel (null
   * then); counted under a lock per account and channel, so concurrent creations cannot overshoot.
   */
  async insertCapped(
    row: Omit<ConnectionEntity, 'createdAt' | 'updatedAt'>,
    maxLive: number,
  ): Promise<ConnectionEntity | null> {
    let inserted: boolean;
    try {
      inserted = await this.ds.transaction(async (em) => {
        await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
          `connections:${row.accountId}:${row.channel}`,
        ]);
        const live = await em
          .getRepository(ConnectionEntity)
          .countBy({ accountId: row.accountId, channel: row.channel, state: Not('disconnected') });
        if (live >= maxLive) return false;
        await em.getRepository(ConnectionEntity).insert(row);
        return true;
      });
    } catch (err) {
      // Another live connection holds the account's channel, the bot or the app.
      if (isPgError(err, PG_ERROR.uniqueViolation)) {
        throw new ConnectionTakenError((err as { constraint?: string }).constraint ?? 'a unique index');
      }
      throw err;
    }
    return inserted ? (await this.repo.findOneBy({ id: row.id }))! : null;
  }

  findById(id: string): Promise<ConnectionEntity | null> {
    return this.repo.findOneBy({ id });
  }

  /** The account's connections, live ones first, newest first. */
  listForAccount(accountId: string): Promise<ConnectionEntity[]> {
    return this.repo
      .createQueryBuilder('c')
      .where('c.account_id = :accountId', { accountId })
      .orderBy("c.state = 'disconnected'", 'ASC')
      .addOrderBy('c.created_at', 'DESC')
      .limit(200)
      .getMany();
  }

  /** The account's live connection of a channel (a send names only the channel). */
  liveForAccount(accountId: string, channel: ConnectionChannel): Promise<ConnectionEntity | null> {
    return this.repo.findOneBy({ accountId, channel, state: Not('disconnected') });
  }

  /**
   * The account's live connections of these channels (at most one each); concurrent sends share
   * one query, read after each of them asked (a connection deleted a moment ago does not send).
   */
  async liveOfChannels(
    accountId: string,
    channels: readonly ConnectionChannel[],
  ): Promise<Pick<ConnectionEntity, 'id' | 'channel' | 'appId' | 'credential'>[]> {
    const live = await this.liveByAccount.all(accountId);
    return live.filter((c) => channels.includes(c.channel));
  }

  private readonly liveByAccount = new BatchedLookup<
    string,
    Pick<ConnectionEntity, 'id' | 'accountId' | 'channel' | 'appId' | 'credential'>
  >({
    load: async (accountIds) => {
      const rows: {
        id: string;
        account_id: string;
        channel: ConnectionChannel;
        app_id: number | null;
        credential: string | null;
      }[] = await this.ds.query(
        `SELECT id, account_id, channel, app_id, credential FROM connections
          WHERE account_id = ANY($1::uuid[]) AND state <> 'disconnected' AND channel = ANY($2::text[])`,
        [accountIds, GATEWAY_SEND_CHANNELS],
      );
      return rows.map((r) => ({
        id: r.id,
        accountId: r.account_id,
        channel: r.channel,
        appId: r.app_id,
        credential: r.credential,
      }));
    },
    queryKey: (accountId) => accountId,
    rowKey: (c) => c.accountId,
  });

  /**
   * A connection as a callback to it needs it, with its account's api user; the callbacks that
   * arrive at the same time are read in one query (never from a cache: a disconnect holds at once).
   */
  findForCallback(id: string): Promise<CallbackConnection | null> {
    return this.forCallback.one(id);
  }

  private readonly forCallback = new BatchedLookup<string, CallbackConnection>({
    load: async (ids) => {
      const rows: {
        id: string;
        account_id: string;
        channel: ConnectionChannel;
        state: ConnectionEntity['state'];
        credential: string | null;
        inbound_secret_hash: string | null;
        user_id: string | null;
      }[] = await this.ds.query(
        `SELECT c.id, c.account_id, c.channel, c.state, c.credential, c.inbound_secret_hash, a.user_id
           FROM connections c LEFT JOIN accounts a ON a.id = c.account_id WHERE c.id = ANY($1::uuid[])`,
        [ids],
      );
      return rows.map((r) => ({
        id: r.id,
        accountId: r.account_id,
        channel: r.channel,
        state: r.state,
        credential: r.credential,
        inboundSecretHash: r.inbound_secret_hash,
        userId: r.user_id,
      }));
    },
    queryKey: (id) => id,
    rowKey: (c) => c.id,
  });

  /** The live connection of a bot, whichever account holds it. */
  liveBot(channel: ConnectionChannel, botId: string): Promise<ConnectionEntity | null> {
    return this.repo.findOneBy({ channel, botId, state: Not('disconnected') });
  }

  /** How many connections each channel has in each state (readiness detail). */
  async countsByChannel(): Promise<Record<string, Record<string, number>>> {
    const rows = (await this.ds.query(
      `SELECT channel, state, count(*)::int AS n FROM connections GROUP BY channel, state`,
    )) as { channel: string; state: string; n: number }[];
    const out: Record<string, Record<string, number>> = {};
    for (const r of rows) (out[r.channel] ??= {})[r.state] = r.n;
    return out;
  }

  /** Marks a connection disconnected and forgets its secrets; false when it was already. */
  async disconnect(id: string): Promise<boolean> {
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({ state: 'disconnected', credential: null, inboundSecretHash: null })
      .where("id = :id AND state <> 'disconnected'", { id })
      .execute();
    return (result.affected ?? 0) > 0;
  }
}
