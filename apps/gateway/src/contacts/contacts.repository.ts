import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';

/** A new contact's id (UUID v7: contacts page in creation order). */
export const newContactId = (): string => uuidv7();
import { ContactAddress, GatewaySendChannel } from '@app/contracts';
import { sqlRows } from '@app/database';
import { AttributeValue } from './contact-fields';
import { sortAddresses } from './contact-addresses';

/** A contact as stored. */
export interface ContactRow {
  id: string;
  account_id: string;
  external_id: string | null;
  name: string | null;
  /** Its addresses on every channel, in answer order (sortAddresses). */
  addresses: ContactAddress[];
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
  'id' | 'external_id' | 'name' | 'addresses' | 'time_zone' | 'language' | 'attributes'
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

/** A contact's addresses as one JSON array, oldest first (what a row of `c` reads as `addresses`). */
const ADDRESSES = `(SELECT coalesce(jsonb_agg(jsonb_build_object('channel', a.channel, 'kind', a.kind, 'value', a.value)
  ORDER BY a.created_at, a.value), '[]'::jsonb) FROM contact_addresses a WHERE a.contact_id = c.id) AS addresses`;
const COLUMNS = `c.id, c.account_id, c.external_id, c.name, ${ADDRESSES}, c.time_zone, c.language, c.attributes, c.lists,
  c.created_at, c.updated_at`;
/** AudienceContact's columns. */
const AUDIENCE_COLUMNS = `c.id, c.external_id, c.name, ${ADDRESSES}, c.time_zone, c.language, c.attributes`;
/**
 * Only the attributes whose keys are the text array `$1`: a campaign reads what its params name,
 * never all 50 of each contact (they cost the most to read and parse).
 */
const SOME_ATTRIBUTES = `COALESCE((SELECT jsonb_object_agg(k, c.attributes -> k) FROM unnest($1::text[]) AS k
  WHERE c.attributes ? k), '{}'::jsonb)`;
/** What a row costs besides its attributes, in bytes at most: its other fields, at their caps. */
const ROW_BYTES = `512 + octet_length(coalesce(c.name, '')) + octet_length(array_to_string(c.lists, ','))
  + (SELECT coalesce(sum(64 + octet_length(a.value)), 0) FROM contact_addresses a WHERE a.contact_id = c.id)`;

/**
 * About how many bytes of contacts one page read holds (a list page, an export page, an audience
 * page): with contacts at their caps, a few hundred rows; with small ones, the row limit.
 */
export const PAGE_BYTES = 1024 * 1024;

/** A page of rows, and whether rows may follow it (the row limit or PAGE_BYTES cut it). */
export interface Page<T> {
  rows: T[];
  more: boolean;
}

/**
 * Every page after another until none is left. A page cut by its bytes sets the next one's row
 * limit near what fitted, so that large contacts are not read many times over to be cut again.
 */
async function* pages<T extends { id: string }>(
  pageSize: number,
  read: (cursor: string | null, limit: number) => Promise<Page<T>>,
): AsyncGenerator<T[]> {
  let cursor: string | null = null;
  let limit = pageSize;
  for (;;) {
    const page = await read(cursor, limit);
    if (page.rows.length) yield page.rows;
    if (!page.more || !page.rows.length) return;
    cursor = page.rows[page.rows.length - 1].id;
    limit = page.rows.length < limit ? Math.min(pageSize, page.rows.length + 16) : pageSize;
  }
}

interface Sized {
  row_bytes?: number;
  page_bytes: number;
}
const VALUE_COLUMNS = ['external_id', 'name', 'time_zone', 'language'] as const;

/** Rows as read: addresses in answer order. */
const read = <T extends { addresses: ContactAddress[] }>(rows: T[]): T[] => {
  // Fields in one order (jsonb keeps its own), so a contact compares equal to its values as merged.
  for (const r of rows)
    r.addresses = sortAddresses(r.addresses.map(({ channel, kind, value }) => ({ channel, kind, value })));
  return rows;
};

/** A batch's addresses as the arrays UNNEST takes: contact ids, channels, kinds, values. */
function addressColumns(contacts: { id: string; addresses: ContactAddress[] }[]): string[][] {
  const cols: string[][] = [[], [], [], []];
  for (const c of contacts)
    for (const a of c.addresses) {
      cols[0].push(c.id);
      cols[1].push(a.channel);
      cols[2].push(a.kind);
      cols[3].push(a.value);
    }
  return cols;
}

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
    const [row] = read(await sqlRows<ContactRow>(this.ds, `SELECT ${COLUMNS} FROM contacts c WHERE c.id = $1`, [id]));
    return row ?? null;
  }

  async findByExternalId(accountId: string, externalId: string): Promise<ContactRow | null> {
    const [row] = read(
      await sqlRows<ContactRow>(
        this.ds,
        `SELECT ${COLUMNS} FROM contacts c WHERE c.account_id = $1 AND c.external_id = $2`,
        [accountId, externalId],
      ),
    );
    return row ?? null;
  }

  /** A new contact and its addresses, together or not at all (an address another contact holds fails both). */
  insert(accountId: string, v: ContactValues, db?: EntityManager): Promise<ContactRow> {
    if (!db) return this.ds.transaction((em) => this.insert(accountId, v, em));
    const id = newContactId();
    return this.insertAs(db, id, accountId, v);
  }

  private async insertAs(db: EntityManager, id: string, accountId: string, v: ContactValues): Promise<ContactRow> {
    await db.query(
      `INSERT INTO contacts (id, account_id, external_id, name, time_zone, language, attributes, lists)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, accountId, ...VALUE_COLUMNS.map((c) => v[c]), JSON.stringify(v.attributes), v.lists],
    );
    await this.writeAddresses(db, accountId, [{ id, addresses: v.addresses }]);
    return (await this.readIn(db, id))!;
  }

  /** The contact's fields and addresses, together or not at all. */
  async update(id: string, v: ContactValues, db?: EntityManager): Promise<ContactRow> {
    if (!db) return this.ds.transaction((em) => this.update(id, v, em));
    const [{ account_id: accountId }] = await sqlRows<{ account_id: string }>(
      db,
      `UPDATE contacts SET external_id = $2, name = $3, time_zone = $4, language = $5, attributes = $6, lists = $7,
              updated_at = now()
        WHERE id = $1 RETURNING account_id`,
      [id, ...VALUE_COLUMNS.map((c) => v[c]), JSON.stringify(v.attributes), v.lists],
    );
    await this.writeAddresses(db, accountId, [{ id, addresses: v.addresses }]);
    return (await this.readIn(db, id))!;
  }

  private async readIn(db: DataSource | EntityManager, id: string): Promise<ContactRow | null> {
    const [row] = read(await sqlRows<ContactRow>(db, `SELECT ${COLUMNS} FROM contacts c WHERE c.id = $1`, [id]));
    return row ?? null;
  }

  /**
   * Makes these contacts' addresses exactly the given ones, in two statements whatever their number:
   * the ones no longer given removed, new ones added (an address another contact of the account
   * holds fails the unique index: the caller's conflict), the ones kept left with their age.
   */
  private async writeAddresses(
    db: DataSource | EntityManager,
    accountId: string,
    contacts: { id: string; addresses: ContactAddress[] }[],
  ): Promise<void> {
    if (!contacts.length) return;
    const [ids, channels, kinds, values] = addressColumns(contacts);
    const given = `unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS x(contact_id, channel, kind, value)`;
    await db.query(
      `DELETE FROM contact_addresses a WHERE a.contact_id = ANY($1::uuid[])
          AND NOT EXISTS (SELECT 1 FROM ${given} WHERE x.contact_id = a.contact_id AND x.channel = a.channel
                             AND x.kind = a.kind AND x.value = a.value)`,
      [contacts.map((c) => c.id), ids, channels, kinds, values],
    );
    await db.query(
      `INSERT INTO contact_addresses (account_id, contact_id, channel, kind, value)
       SELECT $1, x.contact_id, x.channel, x.kind, x.value FROM ${given}
        WHERE NOT EXISTS (SELECT 1 FROM contact_addresses a WHERE a.contact_id = x.contact_id AND a.channel = x.channel
                             AND a.kind = x.kind AND a.value = x.value)`,
      [accountId, ids, channels, kinds, values],
    );
  }

  /** Erases the contact: the row and every personal field with it. */
  async delete(id: string): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(this.ds, `DELETE FROM contacts WHERE id = $1 RETURNING id`, [id]);
    return rows.length > 0;
  }

  /**
   * A page of the account's contacts in id order (creation order), after `cursor`: at most `limit`
   * rows and about PAGE_BYTES of them (`more` when either cut it short).
   */
  page(accountId: string, filter: ContactFilter, cursor: string | null, limit: number): Promise<Page<ContactRow>> {
    return this.select<ContactRow>(COLUMNS, 'c.attributes', accountId, filter, cursor, limit);
  }

  /**
   * Rows in id order after `cursor`, `limit` at most and cut once they come to `PAGE_BYTES` (the
   * row that passes it included, so a page is never empty while rows are left): what one page
   * holds in the heap is bounded whatever the tenant stored. `attributes` is the expression read as
   * the attributes column (all of them, or only some keys).
   */
  private async select<T>(
    columns: string,
    attributes: string,
    accountId: string,
    filter: ContactFilter,
    cursor: string | null,
    limit: number,
    params: unknown[] = [],
  ): Promise<Page<T>> {
    const where = [`c.account_id = $${params.push(accountId)}`];
    if (cursor) where.push(`c.id > $${params.push(cursor)}`);
    if (filter.list) where.push(`c.lists @> ARRAY[$${params.push(filter.list)}]::text[]`);
    if (filter.lists?.length) where.push(`c.lists @> $${params.push(filter.lists)}::text[]`);
    if (filter.attributes && Object.keys(filter.attributes).length) {
      where.push(`c.attributes @> $${params.push(JSON.stringify(filter.attributes))}::jsonb`);
    }
    if (filter.channel) {
      where.push(
        `EXISTS (SELECT 1 FROM contact_addresses a WHERE a.contact_id = c.id AND a.channel = $${params.push(filter.channel)})`,
      );
    }
    if (filter.q) {
      const n = params.push(`%${likeLiteral(filter.q)}%`);
      where.push(`(c.name ILIKE $${n} OR c.external_id ILIKE $${n})`);
    }
    const rows = await sqlRows<T & Sized>(
      this.ds,
      `SELECT * FROM (
         SELECT p.*, sum(p.row_bytes) OVER (ORDER BY p.id) AS page_bytes FROM (
           SELECT ${columns.replace(/\bc\.attributes\b/, `${attributes} AS attributes`)},
                  (${ROW_BYTES} + octet_length((${attributes})::text))::float8 AS row_bytes
             FROM contacts c WHERE ${where.join(' AND ')} ORDER BY c.id LIMIT $${params.push(limit)}) p
         ORDER BY p.id) s
        WHERE s.page_bytes - s.row_bytes < $${params.push(PAGE_BYTES)}`,
      params,
    );
    read(rows as (T & Sized & { addresses: ContactAddress[] })[]);
    const more = rows.length >= limit || (rows.length > 0 && Number(rows[rows.length - 1].page_bytes) >= PAGE_BYTES);
    for (const r of rows) {
      delete (r as Partial<Sized>).row_bytes;
      delete (r as Partial<Sized>).page_bytes;
    }
    return { rows, more };
  }

  /**
   * A campaign's audience: the account's contacts matching the filter in id order, a page at a
   * time (`pageSize` rows at most, PAGE_BYTES about), with only the fields a campaign uses and only
   * the attributes its params name (`{}` when they name none).
   */
  async *audience(
    accountId: string,
    filter: ContactFilter,
    attributeKeys: string[],
    pageSize: number,
  ): AsyncGenerator<AudienceContact[]> {
    yield* pages(pageSize, (cursor, limit) =>
      this.select<AudienceContact>(AUDIENCE_COLUMNS, SOME_ATTRIBUTES, accountId, filter, cursor, limit, [
        attributeKeys,
      ]),
    );
  }

  /**
   * The account's contacts among these ids and external ids (a campaign's named audience, a chunk
   * at a time), with the fields a campaign uses and only the attributes named in `attributeKeys`.
   */
  findByRefs(
    accountId: string,
    ids: string[],
    externalIds: string[],
    attributeKeys: string[],
  ): Promise<AudienceContact[]> {
    const columns = AUDIENCE_COLUMNS.replace(/\bc\.attributes\b/, `${SOME_ATTRIBUTES} AS attributes`);
    return sqlRows<AudienceContact>(
      this.ds,
      `SELECT ${columns} FROM contacts c WHERE c.account_id = $2
          AND (c.id = ANY($3::uuid[]) OR c.external_id = ANY($4::text[]))`,
      [attributeKeys, accountId, ids, externalIds],
    ).then(read);
  }

  /** The account's contacts that have one of these external ids or addresses (an import batch's matches). */
  async matching(
    accountId: string,
    keys: { externalIds: string[]; addresses: ContactAddress[] },
    db: DataSource | EntityManager = this.ds,
  ): Promise<ContactRow[]> {
    const [, channels, kinds, values] = addressColumns([{ id: '', addresses: keys.addresses }]);
    // Each branch an index lookup: the external id's, and the addresses' unique index.
    return read(
      await sqlRows<ContactRow>(
        db,
        `SELECT ${COLUMNS} FROM contacts c WHERE c.id IN (
           SELECT id FROM contacts WHERE account_id = $1 AND external_id = ANY($2::text[])
           UNION SELECT a.contact_id FROM unnest($3::text[], $4::text[], $5::text[]) AS x(channel, kind, value)
             JOIN contact_addresses a ON a.account_id = $1 AND a.channel = x.channel AND a.kind = x.kind
                                     AND a.value = x.value)`,
        [accountId, keys.externalIds, channels, kinds, values],
      ),
    );
  }

  /** Writes an import batch: new contacts inserted, changed ones updated, each in one statement, then their addresses. */
  async writeMany(
    em: EntityManager,
    accountId: string,
    inserts: (ContactValues & { id: string })[],
    updates: (ContactValues & { id: string })[],
  ): Promise<void> {
    const recordset = `jsonb_to_recordset($1::jsonb) AS x(id uuid, external_id text, name text, time_zone text,
        language text, attributes jsonb, lists text[])`;
    const json = (rows: (ContactValues & { id: string })[]) =>
      JSON.stringify(rows.map(({ addresses: _addresses, ...row }) => row));
    if (inserts.length) {
      await em.query(
        `INSERT INTO contacts (id, account_id, external_id, name, time_zone, language, attributes, lists)
         SELECT x.id, $2, x.external_id, x.name, x.time_zone, x.language, x.attributes, x.lists FROM ${recordset}`,
        [json(inserts), accountId],
      );
    }
    if (updates.length) {
      await em.query(
        `UPDATE contacts c SET external_id = x.external_id, name = x.name, time_zone = x.time_zone,
                language = x.language, attributes = x.attributes, lists = x.lists, updated_at = now()
           FROM ${recordset} WHERE c.id = x.id AND c.account_id = $2`,
        [json(updates), accountId],
      );
    }
    await this.writeAddresses(em, accountId, [...inserts, ...updates]);
  }

  /** Every contact of the account in id order, a page at a time (the CSV export). */
  all(accountId: string, filter: ContactFilter, pageSize = 1000): AsyncGenerator<ContactRow[]> {
    return pages(pageSize, (cursor, limit) => this.page(accountId, filter, cursor, limit));
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
