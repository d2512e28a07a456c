import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { CampaignRecipientInput, primaryAddressKind } from '@app/contracts';
import { createDataSource } from '@app/database';
import { Platform, startPlatform } from '../../../../test/support/platform';
import { AccountsRepository } from '../../src/accounts/accounts.repository';
import { Identities } from '../../src/contacts/contact-fields';
import { ContactRow, ContactsRepository } from '../../src/contacts/contacts.repository';
import { EMPTY_CONTACT } from '../../src/contacts/contacts.service';
import { gatewaySchema } from '../../src/database/schema';
import { CampaignsApiState, startCampaignsApi } from './campaigns-api';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

type Started = Pick<
  CampaignsGateway,
  'platform' | 'api' | 'db' | 'accountId' | 'token' | 'otherToken' | 'unlinkedToken'
>;

/** A suite's gateway, its stand-in api, and the account (Europe/Berlin; WhatsApp and Telegram connected) it acts as. */
export interface CampaignsGateway {
  platform: Platform;
  api: { state: CampaignsApiState; close(): Promise<void> };
  db: DataSource;
  accountId: string;
  token: string;
  otherToken: string;
  unlinkedToken: string;
  /** A request to the gateway as the account (or `token`): the status, headers, text and JSON body. */
  call(
    path: string,
    init?: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; text: string; body: Json }>;
  /** The fields a 400 problem names, each once, sorted. */
  fields(res: { body: Json }): string[];
  definition(over?: Json): Json;
  /** A draft of `definition(over)`, created (201). */
  create(over?: Json): Promise<Json>;
  /** A contact with these fields, and its primary address on each channel given (`whatsapp`: its phone). */
  contact(v: Partial<typeof EMPTY_CONTACT> & Identities): Promise<ContactRow>;
  /** The recipients the stand-in api holds for a campaign, as the gateway loaded them. */
  loaded(id: string): CampaignRecipientInput[];
}

/**
 * Starts, for the suite named `suite`, the gateway against a stand-in for the api's campaign subjects
 * (before all its tests) and stops them after; the fields are set once it has started.
 */
export function campaignsGateway(suite: string): CampaignsGateway {
  let contacts: ContactsRepository;
  const helpers: Omit<CampaignsGateway, keyof Started> = {
    call: async (path, init = {}) => {
      const res = await fetch(`${g.platform.urls.gateway}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: {
          Authorization: `Bearer ${init.token ?? g.token}`,
          ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...init.headers,
        },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
      const text = await res.text();
      const json = /json/.test(res.headers.get('content-type') ?? '');
      return { status: res.status, headers: res.headers, text, body: (json && text ? JSON.parse(text) : null) as Json };
    },
    fields: (res) => [...new Set(((res.body?.errors ?? []) as { field: string }[]).map((e) => e.field))].sort(),
    definition: (over = {}) => ({
      name: 'November sale',
      template: 'sale_announcement',
      params: ['{{contact.name}}'],
      audience: { list: 'vip' },
      channels: ['whatsapp', 'telegram'],
      ...over,
    }),
    create: async (over = {}) => {
      const res = await g.call('/v1/campaigns', { body: g.definition(over) });
      expect(res.status).toBe(201);
      return res.body;
    },
    contact: ({ whatsapp, telegram, max, ...v }) =>
      contacts.insert(g.accountId, {
        ...EMPTY_CONTACT,
        ...v,
        addresses: Object.entries({ whatsapp, telegram, max })
          .filter((e): e is [string, string] => !!e[1])
          .map(([channel, value]) => ({ channel, kind: primaryAddressKind(channel)!.kind, value })),
      }),
    loaded: (id) => g.api.state.loaded.get(id) ?? [],
  };
  // The started fields are set before any test runs (beforeAll).
  const g = helpers as CampaignsGateway;

  beforeAll(async () => {
    g.platform = await startPlatform({
      suite,
      services: ['gateway'],
      env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
    });
    g.api = await startCampaignsApi(g.platform.env);
    g.db = createDataSource(g.platform.infra.databaseUrl, gatewaySchema, 2);
    await g.db.initialize();
    contacts = new ContactsRepository(g.db);
    const accounts = new AccountsRepository(g.db);
    const mine = await accounts.createAccount('shop', randomUUID());
    g.accountId = mine.account.id;
    g.token = mine.token;
    g.otherToken = (await accounts.createAccount('other', randomUUID())).token;
    g.unlinkedToken = (await accounts.createAccount('unlinked', null)).token;
    await g.db.query(`UPDATE accounts SET time_zone = 'Europe/Berlin' WHERE id = $1`, [g.accountId]);
    await g.db.query(
      `INSERT INTO connections (id, account_id, channel, state, app_id, bot_id, credential)
       VALUES ($1, $2, 'whatsapp', 'active', 7, NULL, NULL), ($3, $2, 'telegram', 'active', NULL, '4242', 'sealed-telegram-token')`,
      [uuidv7(), g.accountId, uuidv7()],
    );
  });

  afterAll(async () => {
    await g.db?.destroy();
    await g.api?.close();
    await g.platform?.stop();
  });

  return g;
}
