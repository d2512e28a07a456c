import { Injectable } from '@nestjs/common';
import { APPS_RPC, ResolveConnectionReply, ResolveConnectionRequest } from '@app/contracts';
import { RpcClient } from '@app/messaging';
import { Clock, counter } from '@app/server';
import { GatewayConfig } from '../config';

/** The app and tenant an event belongs to; nulls when no app owns the connection. */
export type Tenant = ResolveConnectionReply;

/** A connection no app owns is remembered at most this long, so a number connected meanwhile is seen soon. */
export const NEGATIVE_CACHE_MAX_MS = 30_000;

/** The api answers from one indexed lookup; a slow answer must still leave the channel's request time to get its 503. */
const RPC_TIMEOUT_MS = 3_000;

/** Bounds the memory a flood of distinct (signed) connection ids could take. */
const MAX_ENTRIES = 10_000;

const lookups = () =>
  counter('gateway_tenant_lookups_total', 'Tenant lookups of channel connections by outcome', ['outcome']);

/** One connection's key, the same for every question about it. */
export function connectionKeyOf(req: ResolveConnectionRequest): string {
  return `${req.channel}|${req.phone_number_id ?? ''}|${req.waba_id ?? ''}`;
}

/**
 * Which app and tenant a channel connection belongs to, asked of the api (the owner of apps) over
 * request/reply and remembered per connection. Errors (the api not answering) propagate: the caller
 * must not publish events without their tenant.
 */
@Injectable()
export class TenantResolver {
  private readonly cache = new Map<string, { tenant: Tenant; expires: number }>();
  /** Concurrent callbacks of one connection share one question. */
  private readonly inFlight = new Map<string, Promise<Tenant>>();

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: GatewayConfig,
    private readonly clock: Clock,
  ) {}

  async resolve(req: ResolveConnectionRequest): Promise<Tenant> {
    const key = connectionKeyOf(req);
    const known = this.remembered(key);
    if (known) return known;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const ask = this.ask(key, req).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, ask);
    return ask;
  }

  /**
   * The connection's owner if it is known now, without waiting for the api: the remembered answer,
   * or one remembered past its time (given for as long again, so that a connection's callbacks keep
   * their short way while it is asked anew). Undefined otherwise; the question is asked meanwhile
   * and its answer remembered.
   */
  known(req: ResolveConnectionRequest): Tenant | undefined {
    const key = connectionKeyOf(req);
    const known = this.remembered(key);
    if (known) return known;
    const cached = this.cache.get(key);
    this.resolve(req).catch(() => undefined);
    if (
      cached &&
      cached.tenant.app_id !== null &&
      cached.expires + this.config.GATEWAY_TENANT_CACHE_MS > this.clock.nowMs()
    ) {
      lookups().inc({ outcome: 'stale' });
      return cached.tenant;
    }
    return undefined;
  }

  private remembered(key: string): Tenant | undefined {
    const cached = this.cache.get(key);
    if (!cached || cached.expires <= this.clock.nowMs()) return undefined;
    lookups().inc({ outcome: 'cached' });
    return cached.tenant;
  }

  private async ask(key: string, req: ResolveConnectionRequest): Promise<Tenant> {
    let reply: ResolveConnectionReply;
    try {
      reply = await this.rpc.call(APPS_RPC.resolveConnection, req, { timeoutMs: RPC_TIMEOUT_MS });
    } catch (err) {
      lookups().inc({ outcome: 'unavailable' });
      throw err;
    }
    const tenant: Tenant =
      reply && Number.isInteger(reply.app_id) && typeof reply.user_id === 'string'
        ? { app_id: reply.app_id, user_id: reply.user_id }
        : { app_id: null, user_id: null };
    lookups().inc({ outcome: tenant.app_id === null ? 'unknown' : 'resolved' });
    const ttl = this.config.GATEWAY_TENANT_CACHE_MS;
    if (ttl > 0) {
      if (this.cache.size >= MAX_ENTRIES) this.evictExpiredOrOldest();
      const keep = tenant.app_id === null ? Math.min(ttl, NEGATIVE_CACHE_MAX_MS) : ttl;
      this.cache.delete(key); // re-inserted at the end, so the eviction order stays oldest first
      this.cache.set(key, { tenant, expires: this.clock.nowMs() + keep });
    }
    return tenant;
  }

  private evictExpiredOrOldest(): void {
    const now = this.clock.nowMs();
    for (const [k, v] of this.cache) if (v.expires <= now) this.cache.delete(k);
    // Map keeps insertion order: the first key is the oldest entry.
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
  }
}
