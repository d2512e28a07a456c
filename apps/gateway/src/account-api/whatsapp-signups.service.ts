import { Injectable } from '@nestjs/common';
import { APPS_RPC, DescribeAppReply, StartSignupReply } from '@app/contracts';
import { RpcClient } from '@app/messaging';
import { NotFoundProblem } from '@app/server';
import { AuthenticatedAccount, billedUser } from '../accounts/authenticated-account';
import { WhatsAppSignupStatusDto } from './whatsapp-signups.dto';

const APP_ID = /^[1-9][0-9]{0,9}$/;

/**
 * WhatsApp's embedded signup started from the console: the api creates an app of the account's
 * user and its onboarding link; the business completes the signup there, and the app's status says
 * when its number is connected (then it is linked like any app, POST /v1/connections).
 */
@Injectable()
export class WhatsAppSignupsService {
  constructor(private readonly rpc: RpcClient) {}

  start(account: AuthenticatedAccount, name: string): Promise<StartSignupReply> {
    return this.rpc.call(
      APPS_RPC.startSignup,
      { user_id: billedUser(account, 'no apps'), name },
      { unavailable: 'A WhatsApp signup cannot be started right now; retry later.' },
    );
  }

  /** The signup's app as far as it has got; another user's app or an unknown one is 404. */
  async status(account: AuthenticatedAccount, appId: string): Promise<WhatsAppSignupStatusDto> {
    const userId = billedUser(account, 'no apps');
    if (!APP_ID.test(appId) || Number(appId) > 2_147_483_647) throw new NotFoundProblem('app');
    const app: DescribeAppReply = await this.rpc.call(
      APPS_RPC.describe,
      { app_id: Number(appId) },
      { unavailable: 'The app cannot be read right now; retry later.' },
    );
    if (!app.found || app.user_id !== userId) throw new NotFoundProblem('app');
    return {
      app_id: app.app_id,
      status: app.status,
      connected: app.status === 'ACTIVE' && !app.is_stopped && app.phone_number_id !== null,
      phone: app.phone ?? null,
    };
  }
}
