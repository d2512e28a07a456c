import type { SUBSCRIPTIONS_RPC } from './subscriptions';
import type { RpcMethods } from './rpc';

/**
 * What a gateway account reads and manages of its api user (docs/console.md): its balance, its
 * transactions and its webhook subscriptions. The gateway has authenticated the account; the api
 * answers for the account's user, and forwards the subscription calls to the webhooks service.
 */
export const GATEWAY_ACCOUNT_RPC = {
  balance: 'accounts.gateway.balance',
  transactions: 'accounts.gateway.transactions',
  webhooks: 'accounts.gateway.webhooks',
} as const;

/** Transactions in one answer at most (an answer is one NATS message). */
export const GATEWAY_TRANSACTIONS_PAGE = { default: 50, max: 200 } as const;

export interface GatewayBalanceRequest {
  user_id: string;
}

export interface GatewayBalance {
  balance: number;
  currency: string;
}

export interface GatewayTransactionsRequest {
  user_id: string;
  /** YYYY-MM-DD: the period starts at its 00:00 UTC. */
  start_date: string;
  cursor?: string;
  limit: number;
}

export interface GatewayTransaction {
  id: string;
  app_id: number | null;
  amount: number;
  currency: string;
  status: string;
  category: string | null;
  assumed_category: string | null;
  pricing_type: string | null;
  uncharged: number;
  recipient_phone: string | null;
  campaign_id: string | null;
  timestamp: number;
}

export interface GatewayTransactionsPage {
  data: GatewayTransaction[];
  next_cursor: string | null;
}

/** The subscription calls a gateway account may make of its user's subscriptions. */
export const GATEWAY_WEBHOOK_CALLS = [
  'list',
  'create',
  'rotateSecret',
  'listDeliveries',
  'pageDeliveries',
  'listAttempts',
  'resend',
] as const;
export type GatewayWebhookCall = (typeof GATEWAY_WEBHOOK_CALLS)[number];

/** One subscription call: the webhooks service's request, for the account's user. */
export interface GatewayWebhooksRequest<C extends GatewayWebhookCall = GatewayWebhookCall> {
  call: C;
  request: RpcMethods[(typeof SUBSCRIPTIONS_RPC)[C]]['request'];
}

export type GatewayWebhooksResult<C extends GatewayWebhookCall> = RpcMethods[(typeof SUBSCRIPTIONS_RPC)[C]]['result'];
