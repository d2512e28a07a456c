import { MigrationInterface, QueryRunner } from 'typeorm';

/** The column each channel's identity had on contacts, and the kind of address it held. */
const IDENTITY_COLUMNS = [
  { channel: 'whatsapp', kind: 'phone' },
  { channel: 'telegram', kind: 'chat_id' },
  { channel: 'max', kind: 'user_id' },
] as const;

/**
 * A contact's addresses as rows (docs/contacts.md#addresses): one person known on a channel by
 * several addresses of several kinds (a WhatsApp phone, business-scoped user id and username), and
 * a new channel without a new column. Each identity column becomes its channel's primary-kind row,
 * spelled as it was, so consent keyed by it keeps applying.
 */
export class ContactAddresses1764500000000 implements MigrationInterface {
  name = 'ContactAddresses1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contact_addresses (
        account_id uuid NOT NULL,
        contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        channel text NOT NULL,
        kind text NOT NULL,
        value text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One contact per address of an account, as the identity columns' unique indexes kept it.
    await q.query(
      `CREATE UNIQUE INDEX contact_addresses_value ON contact_addresses (account_id, channel, kind, value)`,
    );
    await q.query(`CREATE INDEX contact_addresses_contact ON contact_addresses (contact_id)`);
    for (const { channel, kind } of IDENTITY_COLUMNS) {
      await q.query(
        `INSERT INTO contact_addresses (account_id, contact_id, channel, kind, value, created_at)
         SELECT account_id, id, $1, $2, ${channel}, created_at FROM contacts WHERE ${channel} IS NOT NULL`,
        [channel, kind],
      );
      await q.query(`DROP INDEX contacts_${channel}`);
      await q.query(`ALTER TABLE contacts DROP COLUMN ${channel}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { channel, kind } of IDENTITY_COLUMNS) {
      await q.query(`ALTER TABLE contacts ADD COLUMN ${channel} text`);
      // The oldest address of the primary kind, as the column held one.
      await q.query(
        `UPDATE contacts c SET ${channel} = a.value
           FROM (SELECT DISTINCT ON (contact_id) contact_id, value FROM contact_addresses
                  WHERE channel = $1 AND kind = $2 ORDER BY contact_id, created_at, value) a
          WHERE a.contact_id = c.id`,
        [channel, kind],
      );
      await q.query(
        `CREATE UNIQUE INDEX contacts_${channel} ON contacts (account_id, ${channel}) WHERE ${channel} IS NOT NULL`,
      );
    }
    await q.query(`DROP TABLE contact_addresses`);
  }
}
