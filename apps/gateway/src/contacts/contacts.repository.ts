import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';

/** A new contact's id (UUID v7: contacts page in creation order). */
export const newContactId = (): string => uuidv7();
import { GatewaySendChannel } from '@app/contracts';
import { sqlRows } from '@app/database';
import { AttributeValue } from './contact-fields';

/** A contact as stored. */
export interface ContactRow {
  id: string;
  account_id: string;
  external_id: string | null;
  name: string | null;
  whatsapp: string | null;
  telegram: string | null;
  max: string | null;
  time_zone: string | null;
  language: string | null;
  attributes: Record<string, AttributeValue>;
  lists: string[];
  created_at: Date;
  updated_at: Date;
}

/** What a campaign needs of each contact of its audience: who, where, and what its params may use. */
export type AudienceContact = Pick<
  ContactRow,
  'id' | 'external_id' | 'name' | 'whatsapp' | 'telegram' | 'max' | 'time_zone' | 'language' | 'attributes'
>;

/** The stored columns a create or an update writes (every one, after merging with what was there). */
export type ContactValues = Omit<ContactRow, 'id' | 'account_id' | 'created_at' | 'updated_at'>;

export interface ContactFilter {
  list?: string;
  /** In every one of these lists. */
  lists?: string[];
  /** With every one of these attributes equal (a number matches a number, text matches text). */
  attributes?: Record<string, AttributeValue>;
  q?: string;
  channel?: GatewaySendChannel;
}

const COLUMNS = `id, account_id, external_id, name, whatsapp, telegram, max, time_zone, language, attributes, lists, created_at, updated_at`;
/** AudienceContact's columns; attributes are read only when a param refers to them (they cost the most to parse). */
const AUDIENCE_COLUMNS = `id, external_id, name, whatsapp, telegram, max, time_zone, language`;
const VALUE_COLUMNS = ['external_id', 'name', 'whatsapp', 'telegram', 'max', 'time_zone', 'language'] as const;

/** `%` and `_` of a search term taken literally in LIKE. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The only place that queries contacts. */
@Injectable()
export class ContactsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  async findById(id: string): Promise<ContactRow | null> {
    const [row] = await sqlRows<ContactRow>(this.ds, `SELECT ${COLUMNS} FROM contacts WHERE id = $1`, [id]);
    return row ?? null;
  }

  async findByExternalId(accountId: string, externalId: string): Promise<ContactRow | null> {
    const [row] = await sqlRows<ContactRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND external_id = $2`,
      [accountId, externalId],
    );
    return row ?? null;
  }

  async insert(accountId: string, v: ContactValues, db: DataSource | EntityManager = this.ds): Promise<ContactRow> {
    const [row] = await sqlRows<ContactRow>(
      db,
      `INSERT INTO contacts (id, account_id, external_id, name, whatsapp, telegram, max, time_zone, language, attributes, lists)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
      [newContactId(), accountId, ...VALUE_COLUMNS.map((c) => v[c]), JSON.stringify(v.attributes), v.lists],
    );
    return row;
  }

  async update(id: string, v: ContactValues, db: DataSource | EntityManager = this.ds): Promise<ContactRow> {
    const [row] = await sqlRows<ContactRow>(
      db,
      `UPDATE contacts SET external_id = $2, name = $3, whatsapp = $4, telegram = $5, max = $6, time_zone = $7,
              language = $8, attributes = $9, lists = $10, updated_at = now()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...VALUE_COLUMNS.map((c) => v[c]), JSON.stringify(v.attributes), v.lists],
    );
    return row;
  }

  /** Erases the contact: the row and every personal field with it. */
  async delete(id: string): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(this.ds, `DELETE FROM contacts WHERE id = $1 RETURNING id`, [id]);
    return rows.length > 0;
  }

  /** A page of the account's contacts in id order (creation order), after `cursor`. */
  page(accountId: string, filter: ContactFilter, cursor: string | null, limit: number): Promise<ContactRow[]> {
    return this.select<ContactRow>(COLUMNS, accountId, filter, cursor, limit);
  }

  private select<T>(
    columns: string,
    accountId: string,
    filter: ContactFilter,
    cursor: string | null,
    limit: number,
  ): Promise<T[]> {
    const where = ['account_id = $1'];
    const params: unknown[] = [accountId];
    if (cursor) where.push(`id > $${params.push(cursor)}`);
    if (filter.list) where.push(`lists @> ARRAY[$${params.push(filter.list)}]::text[]`);
    if (filter.lists?.length) where.push(`lists @> $${params.push(filter.lists)}::text[]`);
    if (filter.attributes && Object.keys(filter.attributes).length) {
      where.push(`attributes @> $${params.push(JSON.stringify(filter.attributes))}::jsonb`);
    }
    if (filter.channel) where.push(`${filter.channel} IS NOT NULL`);
    if (filter.q) {
      const n = params.push(`%${likeLiteral(filter.q)}%`);
      where.push(`(name ILIKE $${n} OR external_id ILIKE $${n})`);
    }
    return sqlRows<T>(
      this.ds,
      `SELECT ${columns} FROM contacts WHERE ${where.join(' AND ')} ORDER BY id LIMIT $${params.push(limit)}`,
      params,
    );
  }

  /**
   * A campaign's audience: the account's contacts matching the filter in id order, `pageSize` at a
   * time, with only the fields a campaign uses (attributes when asked: `{}` otherwise).
   */
  async *audience(
    accountId: string,
    filter: ContactFilter,
    withAttributes: boolean,
    pageSize: number,
  ): AsyncGenerator<AudienceContact[]> {
    const columns = withAttributes ? `${AUDIENCE_COLUMNS}, attributes` : AUDIENCE_COLUMNS;
    let cursor: string | null = null;
    for (;;) {
      const page: AudienceContact[] = await this.select<AudienceContact>(columns, accountId, filter, cursor, pageSize);
      if (!withAttributes) for (const c of page) c.attributes = {};
      if (page.length) yield page;
      if (page.length < pageSize) return;
      cursor = page[page.length - 1].id;
    }
  }

  /** The account's contacts among these ids and external ids (a campaign's named audience, a chunk at a time). */
  findByRefs(accountId: string, ids: string[], externalIds: string[]): Promise<ContactRow[]> {
    return sqlRows<ContactRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND id = ANY($2::uuid[])
       UNION SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND external_id = ANY($3::text[])`,
      [accountId, ids, externalIds],
    );
  }

  /** The account's contacts that have one of these external ids or identities (an import batch's matches). */
  matching(
    accountId: string,
    keys: { externalIds: string[]; whatsapp: string[]; telegram: string[]; max: string[] },
    db: DataSource | EntityManager = this.ds,
  ): Promise<ContactRow[]> {
    // One branch per unique index, so each is an index lookup.
    return sqlRows<ContactRow>(
      db,
      `SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND external_id = ANY($2::text[])
       UNION SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND whatsapp = ANY($3::text[])
       UNION SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND telegram = ANY($4::text[])
       UNION SELECT ${COLUMNS} FROM contacts WHERE account_id = $1 AND max = ANY($5::text[])`,
      [accountId, keys.externalIds, keys.whatsapp, keys.telegram, keys.max],
    );
  }

  /** Writes an import batch: new contacts inserted, changed ones updated, each in one statement. */
  async writeMany(
    em: EntityManager,
    accountId: string,
    inserts: (ContactValues & { id: string })[],
    updates: (ContactValues & { id: string })[],
  ): Promise<void> {
    const recordset = `jsonb_to_recordset($1::jsonb) AS x(id uuid, external_id text, name text, whatsapp text, telegram text,
        max text, time_zone text, language text, attributes jsonb, lists text[])`;
    if (inserts.length) {
      await em.query(
        `INSERT INTO contacts (id, account_id, external_id, name, whatsapp, telegram, max, time_zone, language, attributes, lists)
         SELECT x.id, $2, x.external_id, x.name, x.whatsapp, x.telegram, x.max, x.time_zone, x.language, x.attributes, x.lists
           FROM ${recordset}`,
        [JSON.stringify(inserts), accountId],
      );
    }
    if (updates.length) {
      await em.query(
        `UPDATE contacts c SET external_id = x.external_id, name = x.name, whatsapp = x.whatsapp, telegram = x.telegram,
                max = x.max, time_zone = x.time_zone, language = x.language, attributes = x.attributes, lists = x.lists,
                updated_at = now()
           FROM ${recordset} WHERE c.id = x.id AND c.account_id = $2`,
        [JSON.stringify(updates), accountId],
      );
    }
  }

  /** Every contact of the account in id order, a page at a time (the CSV export). */
  async *all(accountId: string, filter: ContactFilter, pageSize = 1000): AsyncGenerator<ContactRow[]> {
    let cursor: string | null = null;
    for (;;) {
      const page = await this.page(accountId, filter, cursor, pageSize);
      if (page.length) yield page;
      if (page.length < pageSize) return;
      cursor = page[page.length - 1].id;
    }
  }

  /** The attribute keys the account's contacts use, in order (at most `limit`): the export's columns. */
  async attributeKeys(accountId: string, limit: number): Promise<string[]> {
    const rows = await sqlRows<{ key: string }>(
      this.ds,
      `SELECT DISTINCT jsonb_object_keys(attributes) AS key FROM contacts WHERE account_id = $1 ORDER BY key LIMIT $2`,
      [accountId, limit],
    );
    return rows.map((r) => r.key);
  }
}
