import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A connection may be of any registered channel, including one added at start (CHANNEL_MODULES):
 * the list of channel names the table checked gives way to the registry's rule for a name, and
 * the gateway validates the channel against the registry before it writes.
 */
export class RegisteredChannels1764600000000 implements MigrationInterface {
  name = 'RegisteredChannels1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connections DROP CONSTRAINT connections_channel_check`);
    await q.query(
      `ALTER TABLE connections ADD CONSTRAINT connections_channel_check CHECK (channel ~ '^[a-z][a-z0-9_]{1,31}$')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connections DROP CONSTRAINT connections_channel_check`);
    await q.query(
      `ALTER TABLE connections ADD CONSTRAINT connections_channel_check CHECK (channel IN ('whatsapp', 'telegram', 'max', 'course'))`,
    );
  }
}
