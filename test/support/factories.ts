import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import type { TokenKind } from '@app/auth';
import { AppEntity, MessageLimit, PhoneQuality } from '../../apps/api/src/wa-apps/app.entity';
import { WaAppsRepository } from '../../apps/api/src/wa-apps/wa-apps.repository';
import { BalancesRepository } from '../../apps/api/src/billing/balances.repository';
import { BillingService } from '../../apps/api/src/billing/billing.service';
import { apiSchema } from '../../apps/api/src/database/schema';
import { UsersRepository } from '../../apps/api/src/users/users.repository';
import { StoredButton, TemplateEntity } from '../../apps/api/src/templates/template.entity';
import type { TemplateCategory, TemplateStatus, TemplateType } from '@app/contracts';

export interface TestUser {
  userId: string;
  token: string;
  /** `Authorization` header value. */
  auth: string;
}

/** Users, tokens and money, written through the api's own repositories (as the CLI does). */
export class ApiFactory {
  private constructor(private readonly ds: DataSource) {}

  static async connect(databaseUrl: string): Promise<ApiFactory> {
    const ds = createDataSource(databaseUrl, apiSchema, 2);
    await ds.initialize();
    return new ApiFactory(ds);
  }

  get dataSource(): DataSource {
    return this.ds;
  }

  async user(
    kind: TokenKind = 'system',
    opts: { name?: string; currency?: string; balance?: number } = {},
  ): Promise<TestUser> {
    const users = new UsersRepository(this.ds);
    const user = await users.createUser(
      opts.name ?? `tenant-${Math.random().toString(36).slice(2, 8)}`,
      kind,
      opts.currency ?? 'USD',
    );
    const { token } = await users.issueToken(user.id, 'test');
    if (opts.balance) await new BillingService(new BalancesRepository(this.ds)).credit(user.id, opts.balance);
    return { userId: user.id, token, auth: `Bearer ${token}` };
  }

  /**
   * A charge history written straight in SQL (a million rows in seconds): `count` DELIVERED
   * charges of 0.05 from `from`, `perInstant` of them at each time (ties), one time every `everyMs`,
   * each to its own recipient; then the table is analysed.
   */
  async transactionHistory(
    userId: string,
    count: number,
    opts: { from: string; everyMs?: number; perInstant?: number },
  ): Promise<void> {
    await this.ds.query(
      `INSERT INTO transactions (id, user_id, app_id, amount, currency, status, category, recipient_phone, created_at)
       SELECT gen_random_uuid(), $1, NULL, -0.05, 'USD', 'DELIVERED', 'MARKETING', '4915' || lpad(g::text, 9, '0'),
              $3::timestamptz + (g / $5::int) * $4::int * interval '1 millisecond'
       FROM generate_series(0, $2::int - 1) AS g`,
      [userId, count, opts.from, opts.everyMs ?? 1000, opts.perInstant ?? 1],
    );
    await this.ds.query('ANALYZE transactions');
  }

  /** An app as created by POST /v1/wa/apps: INACTIVE, no number yet. */
  async app(userId: string, name = `App ${Math.random().toString(36).slice(2, 8)}`): Promise<AppEntity> {
    return new WaAppsRepository(this.ds).create(userId, name);
  }

  /**
   * An ACTIVE app with a connected WhatsApp number, as onboarding leaves it (random channel ids
   * unless given), for suites that send messages or manage templates.
   */
  async activeApp(
    userId: string,
    opts: {
      name?: string;
      phone?: string;
      waba_id?: string;
      phone_number_id?: string;
      message_limit?: MessageLimit;
      phone_quality?: PhoneQuality;
      is_stopped?: boolean;
      is_mm_lite_supported?: boolean;
    } = {},
  ): Promise<AppEntity> {
    const digits = (n: number) =>
      `${1 + Math.floor(Math.random() * 9)}${Array.from({ length: n - 1 }, () => Math.floor(Math.random() * 10)).join('')}`;
    const app = await this.app(userId, opts.name);
    await this.ds.getRepository(AppEntity).update(
      { id: app.id },
      {
        status: 'ACTIVE',
        phone: opts.phone ?? `7999${digits(7)}`,
        wabaId: opts.waba_id ?? digits(15),
        phoneNumberId: opts.phone_number_id ?? digits(15),
        ...(opts.message_limit ? { messageLimit: opts.message_limit } : {}),
        ...(opts.phone_quality ? { phoneQuality: opts.phone_quality } : {}),
        ...(opts.is_stopped !== undefined ? { isStopped: opts.is_stopped } : {}),
        ...(opts.is_mm_lite_supported !== undefined ? { isMmLiteSupported: opts.is_mm_lite_supported } : {}),
      },
    );
    return this.ds.getRepository(AppEntity).findOneByOrFail({ id: app.id });
  }

  /**
   * A template of an app in a given status (APPROVED unless told), written straight to the
   * templates table as moderation would leave it, for suites that send template messages.
   */
  async sendableTemplate(
    appId: number,
    opts: {
      name?: string;
      language?: string;
      category?: TemplateCategory;
      type?: TemplateType;
      status?: TemplateStatus;
      header?: string | null;
      body?: string;
      footer?: string | null;
      buttons?: StoredButton[];
    } = {},
  ): Promise<TemplateEntity> {
    const placeholders = (text: string) => [...new Set(text.match(/\{\{\d+\}\}/g) ?? [])].map((_, i) => `v${i + 1}`);
    const body = opts.body ?? 'Hello {{1}}, your order {{2}} is ready.';
    const header = opts.header === undefined ? null : opts.header;
    return this.ds.getRepository(TemplateEntity).save({
      appId,
      waId: `wa_${Math.random().toString(36).slice(2, 12)}`,
      name: opts.name ?? `tpl_${Math.random().toString(36).slice(2, 8)}`,
      language: opts.language ?? 'en',
      category: opts.category ?? 'UTILITY',
      type: opts.type ?? 'TEXT',
      status: opts.status ?? 'APPROVED',
      quality: 'UNKNOWN',
      mediaUrl: opts.type && opts.type !== 'TEXT' ? 'https://example.com/sample.jpg' : null,
      header: header === null ? null : { text: header, example: header, placeholders: placeholders(header) },
      body: { text: body, example: body, placeholders: placeholders(body) },
      footer: opts.footer ? { text: opts.footer } : null,
      buttons: opts.buttons ?? [],
      failureDetails: null,
    });
  }

  /** Opens the 24-hour customer-service window of a recipient, as their inbound message `secondsAgo` would. */
  async openConversation(appId: number, recipient: string, secondsAgo = 0): Promise<void> {
    await this.ds.query(
      `INSERT INTO conversation_windows (app_id, recipient, last_inbound_at) VALUES ($1, $2, now() - make_interval(secs => $3))
       ON CONFLICT (app_id, recipient) DO UPDATE SET last_inbound_at = excluded.last_inbound_at`,
      [appId, recipient, secondsAgo],
    );
  }

  async revoke(token: string): Promise<void> {
    await new UsersRepository(this.ds).revokeToken({ token }, new Date());
  }

  async close(): Promise<void> {
    await this.ds.destroy();
  }
}
