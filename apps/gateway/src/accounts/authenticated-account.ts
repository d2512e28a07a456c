import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { UnprocessableProblem } from '@app/server';

/** Who is calling the gateway: the connected account behind the bearer token. */
export interface AuthenticatedAccount {
  id: string;
  name: string;
  /** The api user the account bills to; null for an account not linked to a user yet. */
  userId: string | null;
  /** The IANA time zone of the account's contacts that name none. */
  timeZone?: string;
  /** Where national phone numbers are read (ISO 3166 alpha-2); none: only international ones. */
  defaultRegion?: string | null;
}

/** Injects the authenticated account into a handler. */
export const CurrentAccount = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthenticatedAccount => {
  return ctx.switchToHttp().getRequest<{ user: AuthenticatedAccount }>().user;
});

/** The api user the account bills to; 422 when the account is not linked to one. */
export function billedUser(account: AuthenticatedAccount, consequence = 'no balance to send from'): string {
  if (!account.userId) {
    throw new UnprocessableProblem(
      'account-not-linked',
      'Account not linked',
      `The account is not linked to a user of the API, so it has ${consequence}.`,
    );
  }
  return account.userId;
}
