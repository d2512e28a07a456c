import { MigrationInterface, QueryRunner } from 'typeorm';

export class Subscriptions1763720000000 implements MigrationInterface {
  name = 'Subscriptions1763720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE subscriptions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL,
        app_id integer,
        description text,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED')),
        disabled_reason text,
        disabled_at timestamptz,
        disabled_event_id text,
        disabled_event_published boolean NOT NULL DEFAULT true,
        failing_since timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX subscriptions_user_idx ON subscriptions (user_id, created_at)`);
    await q.query(
      `CREATE INDEX subscriptions_unpublished_idx ON subscriptions (id) WHERE disabled_event_published = false`,
    );
    await q.query(`
      CREATE TABLE deliveries (
        id uuid PRIMARY KEY,
        seq bigserial NOT NULL,
        subscription_id uuid NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        event_created_at timestamptz NOT NULL,
        stream_seq bigint NOT NULL DEFAULT 0,
        payload text,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
        attempts integer NOT NULL DEFAULT 0,
        retry_index integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        locked_until timestamptz,
        last_attempt_at timestamptz,
        last_response_status integer,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        CONSTRAINT deliveries_subscription_event_uq UNIQUE (subscription_id, event_id)
      )`);
    // The dispatcher's scan: due pending deliveries, oldest event first per subscription.
    await q.query(
      `CREATE INDEX deliveries_pending_idx ON deliveries (subscription_id, stream_seq, seq) WHERE status = 'PENDING'`,
    );
    await q.query(`CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'PENDING'`);
    // Deliveries held by a dispatcher right now (the per-subscription limit); cleared on settle.
    await q.query(
      `CREATE INDEX deliveries_locked_idx ON deliveries (subscription_id) WHERE status = 'PENDING' AND locked_until IS NOT NULL`,
    );
    await q.query(`CREATE INDEX deliveries_list_idx ON deliveries (subscription_id, seq DESC)`);
    await q.query(
      `CREATE INDEX deliveries_retention_idx ON deliveries (created_at) WHERE payload IS NOT NULL AND status <> 'PENDING'`,
    );
    await q.query(`
      CREATE TABLE delivery_attempts (
        id uuid PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
        subscription_id uuid NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        attempt integer NOT NULL,
        status text NOT NULL CHECK (status IN ('SUCCEEDED', 'FAILED')),
        response_status integer,
        latency_ms integer NOT NULL,
        response_excerpt text,
        error text,
        next_retry_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX delivery_attempts_subscription_idx ON delivery_attempts (subscription_id, created_at DESC)`,
    );
    await q.query(`CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE delivery_attempts`);
    await q.query(`DROP TABLE deliveries`);
    await q.query(`DROP TABLE subscriptions`);
  }
}
