import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { GatewayCall, gatewayClient } from './campaigns';
import { ApiFactory, TestUser } from './factories';
import { Platform, startPlatform } from './platform';
import { registerSandboxNumber } from './sandbox';

/** What a course platform's suite works with: the services, and the school's account on them. */
export interface CourseSchool {
  platform: Platform;
  factory: ApiFactory;
  /** The gateway's tables (two connections). */
  gatewayDb: DataSource;
  user: TestUser;
  /** The school's WhatsApp number, registered with the sandbox and connected to its account. */
  app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  /** The school's gateway account. */
  token: string;
  /** The gateway as the school's account. */
  call: GatewayCall;
}

/**
 * The api, gateway, queue and sandbox (whose emulated course platforms post to the gateway), with
 * course events polled and retried within a second, and a school on them: an account with a balance
 * sending on its WhatsApp number, which has one UTILITY template approved.
 */
export async function startCourseSchool(opts: {
  suite: string;
  /** How long the sandbox waits before each status of a sent message. */
  statusDelayMs: number;
  template: { name: string; body: string };
}): Promise<CourseSchool> {
  const platform = await startPlatform({
    suite: opts.suite,
    services: ['api', 'gateway', 'queue', 'sandbox'],
    env: {
      SANDBOX_STATUS_DELAY_MS: String(opts.statusDelayMs),
      COURSE_POLL_INTERVAL_MS: '100',
      COURSE_EVENTS_RETRY_FIRST_DELAY_MS: '100',
      COURSE_EVENTS_RETRY_MAX_DELAY_MS: '400',
    },
  });
  let factory: ApiFactory | undefined;
  let gatewayDb: DataSource | undefined;
  try {
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    const user = await factory.user('system', { balance: 10 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { ...opts.template, category: 'UTILITY' });
    const token = (await new AccountsRepository(gatewayDb).createAccount('school', user.userId)).token;
    const call = gatewayClient(platform.urls.gateway, token);
    const connected = await call('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id });
    if (connected.status !== 201) throw new Error(`WhatsApp connection refused: ${connected.status} ${connected.text}`);
    return { platform, factory, gatewayDb, user, app, token, call };
  } catch (err) {
    if (gatewayDb?.isInitialized) await gatewayDb.destroy();
    await factory?.close();
    await platform.stop();
    throw err;
  }
}
