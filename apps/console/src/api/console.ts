import { PAGE_LIMIT } from '../components/paged-table';
import { api, ok, paths, Schemas } from './client';
import { setCsrfToken } from './session';

export type Role = Schemas['ConsoleUserDto']['role'];
export const ROLES: Role[] = ['owner', 'manager', 'agent', 'viewer'];
export type Locale = Schemas['ConsoleMeDto']['locale'];
export type ConsoleUser = Schemas['ConsoleMeDto'];
export type ListedUser = Schemas['ConsoleUserDto'];
export type AuditEntry = Schemas['AuditEntryDto'];
export type ApiToken = Schemas['AccountTokenDto'] & { token?: string };

export type Balance = Schemas['BalanceDto'];
export type Transaction = Schemas['TransactionDto'];
export type WebhookSubscription = Schemas['WebhookDto'];
export type WebhookDelivery = Schemas['WebhookDeliveryDto'];
export type WebhookEvents = Schemas['CreateWebhookDto']['events'];
export type DeliveryStatus = NonNullable<WebhookDeliveriesQuery['status']>;
type WebhookDeliveriesQuery = NonNullable<paths['/v1/webhooks/{id}/deliveries']['get']['parameters']['query']>;

function started(answer: Schemas['ConsoleSessionDto']): ConsoleUser {
  setCsrfToken(answer.csrf_token);
  return answer.user;
}

/** The console's own session and user routes under /console/api. */
export const consoleApi = {
  session: async () => started(await ok(api.GET('/console/api/session'))),
  signIn: async (email: string, password: string) =>
    started(await ok(api.POST('/console/api/session', { body: { email, password } }))),
  acceptInvitation: async (token: string, password: string) =>
    started(await ok(api.POST('/console/api/invitations/accept', { body: { token, password } }))),
  signOut: async (): Promise<void> => {
    await ok(api.DELETE('/console/api/session'));
    setCsrfToken(undefined);
  },
  signOutEverywhere: async (): Promise<void> => {
    await ok(api.POST('/console/api/session/sign-out-everywhere'));
    setCsrfToken(undefined);
  },
  setLocale: (locale: Locale) => ok(api.PATCH('/console/api/me', { body: { locale } })),
  users: () => ok(api.GET('/console/api/users')),
  invite: (email: string, role: Role) => ok(api.POST('/console/api/users/invitations', { body: { email, role } })),
  setRole: (id: string, role: Role) =>
    ok(api.PATCH('/console/api/users/{id}', { params: { path: { id } }, body: { role } })),
  removeUser: (id: string) => ok(api.DELETE('/console/api/users/{id}', { params: { path: { id } } })),
  audit: (cursor?: string) => ok(api.GET('/console/api/audit', { params: { query: { cursor, limit: PAGE_LIMIT } } })),
};

/** The account's API tokens, and the account routes of the gateway that reach the api (balance, transactions, webhooks). */
export const accountApi = {
  tokens: () => ok(api.GET('/v1/tokens')),
  createToken: (label: string) => ok(api.POST('/v1/tokens', { body: { label } })),
  revokeToken: (id: string) => ok(api.DELETE('/v1/tokens/{id}', { params: { path: { id } } })),
  balance: () => ok(api.GET('/v1/balance')),
  transactions: (cursor?: string) =>
    ok(api.GET('/v1/transactions', { params: { query: { cursor, limit: PAGE_LIMIT } } })),
  webhooks: () => ok(api.GET('/v1/webhooks')),
  createWebhook: (url: string, events: WebhookEvents) => ok(api.POST('/v1/webhooks', { body: { url, events } })),
  rotateSecret: (id: string) => ok(api.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id } } })),
  deliveries: (id: string, cursor?: string, status?: DeliveryStatus) => {
    const query: WebhookDeliveriesQuery = {
      limit: PAGE_LIMIT,
      ...(cursor ? { cursor } : {}),
      ...(status ? { status } : {}),
    };
    return ok(api.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id }, query } }));
  },
  resend: (id: string, deliveryId: string) =>
    ok(api.POST('/v1/webhooks/{id}/deliveries/{deliveryId}/resend', { params: { path: { id, deliveryId } } })),
};

/** A WhatsApp signup started from the console: the new app and the link that opens its embedded signup. */
export type WhatsAppSignup = Schemas['WhatsAppSignupDto'];

/** The console's Connect WhatsApp: start an embedded signup, then follow its app until the number is connected. */
export const whatsappSignups = {
  start: (name: string) => ok(api.POST('/v1/connections/signups', { body: { name } })),
  status: (appId: number) =>
    ok(api.GET('/v1/connections/signups/{appId}', { params: { path: { appId: String(appId) } } })),
};
