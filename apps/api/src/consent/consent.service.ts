import { Injectable, Logger } from '@nestjs/common';
import {
  ApplyConsentResult,
  CampaignConsentRequest,
  CampaignConsentResult,
  canonicalAddress,
  CONSENT_PURPOSES,
  CONSENT_SOURCES,
  CONSENT_STATES,
  ConsentAddress,
  ConsentChange,
  ConsentHistoryResult,
  ConsentSettings,
  ContactConsentEventData,
  EventEnvelope,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  isUuid,
  keywordOf,
  MESSAGE_CATEGORIES,
  MessageCategory,
  newEventId,
  ReadConsentResult,
  Topology,
  unixSeconds,
} from '@app/contracts';
import { Clock, FieldError, ValidationProblem } from '@app/server';
import { ApiConfig } from '../config';
import { Outbox, OutboxEntry, OutboxRepository } from '../outbox';
import { AddressKeys } from './address-keys';
import { consentRefusal, decide, RecordedConsent } from './consent-rules';
import { ConsentRepository, ConsentWrite, KeyedAddress } from './consent.repository';

/** Longest address consent keeps (a phone, a chat or user id). */
const ADDRESS_MAX = 64;
/** Longest evidence kept with a change. */
const EVIDENCE_MAX = 500;
/** Most changes in one request (an import sends its rows in batches of this size at most). */
export const CONSENT_BATCH_MAX = 1000;
/** Most keywords in each of a business's lists. */
const KEYWORDS_MAX = 50;
/** Most routes one campaign dry run asks about. */
export const CONSENT_ROUTES_MAX = 5000;

const keyOfAddress = (a: KeyedAddress) => `${a.userId}|${a.channel}|${a.key}`;

const isChannel = (c: unknown): c is GatewaySendChannel =>
  typeof c === 'string' && (GATEWAY_SEND_CHANNELS as readonly string[]).includes(c);

/** 1 to 3 steps, each a send channel and an address. */
const isRoute = (route: unknown): boolean =>
  Array.isArray(route) &&
  route.length >= 1 &&
  route.length <= GATEWAY_SEND_CHANNELS.length &&
  route.every(
    (s: { channel?: unknown; to?: unknown } | null) =>
      isChannel(s?.channel) && typeof s?.to === 'string' && s.to.length >= 1 && s.to.length <= ADDRESS_MAX,
  );

/**
 * Consent of each business to message each channel address (docs/consent.md): the check every
 * send makes before its hold, the changes (the consent API, imports, inbound keywords, channel
 * signals) with their history, and the events that tell subscribers. A change and its event are
 * committed together (the event through the outbox), so a subscriber hears of every change once.
 */
@Injectable()
export class ConsentService {
  private readonly logger = new Logger(ConsentService.name);
  private readonly enforced: boolean;

  constructor(
    private readonly repo: ConsentRepository,
    private readonly keys: AddressKeys,
    private readonly outbox: Outbox,
    private readonly outboxRows: OutboxRepository,
    private readonly topology: Topology,
    private readonly clock: Clock,
    config: ApiConfig,
  ) {
    this.enforced = config.CONSENT_CHECK === 'on';
  }

  /**
   * Throws the refusal (422 recipient-opted-out or consent-required) when consent forbids a send of
   * `category` from this business to this address; one batched, indexed lookup.
   */
  async check(userId: string, channel: string, recipient: string, category: MessageCategory): Promise<void> {
    if (!this.enforced) return;
    const found = await this.repo.forSend({ userId, channel, key: this.keys.keyOf(channel, recipient) });
    const refusal = consentRefusal(channel, category, found.records, found.marketingRequiresOptIn);
    if (refusal) throw refusal;
  }

  /** Records changes in order, each decided on the state the previous ones left; answers each outcome. */
  async apply(userId: string, changes: ConsentChange[]): Promise<ApplyConsentResult> {
    if (!Array.isArray(changes) || changes.length > CONSENT_BATCH_MAX) {
      throw new ValidationProblem([{ field: 'changes', message: `at most ${CONSENT_BATCH_MAX} changes` }]);
    }
    const errors = changes.flatMap((c, i) => changeErrors(c, `changes[${i}]`));
    if (errors.length) throw new ValidationProblem(errors);
    const at = this.clock.now();
    const keyed = changes.map((c) => ({
      ...c,
      address: canonicalAddress(c.channel, c.address, c.kind),
      userId,
      key: this.keys.keyOf(c.channel, c.address, c.kind),
    }));
    const { outcomes, entries } = await this.repo.transaction(async (em) => {
      const records = await this.repo.lockRecords(em, distinct(keyed));
      const writes: ConsentWrite[] = [];
      const entries: OutboxEntry[] = [];
      const outcomes = keyed.map((c) => {
        const held = records.get(keyOfAddress(c)) ?? [];
        const current = held.find((r) => r.purpose === c.purpose) ?? null;
        const decision = decide(current, c);
        if (!decision.change) return { changed: false, ...(decision.refused ? { refused: decision.refused } : {}) };
        const evidence = c.evidence?.trim().slice(0, EVIDENCE_MAX) || null;
        writes.push({ ...c, evidence, at });
        const next: RecordedConsent[] = held.filter((r) => r.purpose !== c.purpose);
        if (c.state !== 'unknown') next.push({ purpose: c.purpose, state: c.state, source: c.source, since: at });
        records.set(keyOfAddress(c), next);
        entries.push(this.eventOf(userId, { ...c, evidence }, at));
        return { changed: true };
      });
      await this.repo.write(em, writes);
      await this.outboxRows.insert(em, entries);
      return { outcomes, entries };
    });
    await Promise.all(
      entries.map((e) =>
        this.outbox
          .publish(e)
          .catch((err: unknown) => this.logger.warn({ err, id: e.id }, 'consent event left to the outbox relay')),
      ),
    );
    return { outcomes };
  }

  /** Both purposes of each address: its state, where it came from and since when. */
  async read(userId: string, addresses: ConsentAddress[]): Promise<ReadConsentResult> {
    const keyed = this.keyed(userId, addresses);
    const records = await this.repo.records(keyed);
    return {
      states: addresses.flatMap((a, i) =>
        CONSENT_PURPOSES.map((purpose) => {
          const r = (records.get(keyOfAddress(keyed[i])) ?? []).find((x) => x.purpose === purpose);
          return {
            channel: a.channel,
            address: canonicalAddress(a.channel, a.address, a.kind),
            ...(a.kind ? { kind: a.kind } : {}),
            purpose,
            state: r?.state ?? 'unknown',
            source: r?.source ?? null,
            since: r ? unixSeconds(r.since) : null,
          };
        }),
      ),
    };
  }

  async history(userId: string, addresses: ConsentAddress[], limit: number): Promise<ConsentHistoryResult> {
    const rows = await this.repo.history(
      userId,
      this.keyed(userId, addresses),
      Math.min(Math.max(1, Math.floor(limit) || 100), 500),
    );
    return {
      entries: rows.map((r) => ({
        channel: r.channel,
        purpose: r.purpose,
        state: r.state,
        source: r.source,
        evidence: r.evidence,
        at: unixSeconds(new Date(r.occurred_at)),
      })),
    };
  }

  settings(userId: string): Promise<ConsentSettings> {
    return this.repo.settings(userId);
  }

  updateSettings(userId: string, settings: Partial<ConsentSettings>): Promise<ConsentSettings> {
    const errors: FieldError[] = [];
    const s = settings ?? {};
    if (s.marketing_requires_opt_in !== undefined && typeof s.marketing_requires_opt_in !== 'boolean') {
      errors.push({ field: 'marketing_requires_opt_in', message: 'must be a boolean' });
    }
    for (const field of ['opt_out_keywords', 'opt_in_keywords'] as const) {
      const list = s[field];
      if (list === undefined) continue;
      if (
        !Array.isArray(list) ||
        list.length > KEYWORDS_MAX ||
        !list.every((k) => typeof k === 'string' && keywordOf(k) !== null)
      ) {
        errors.push({ field, message: `at most ${KEYWORDS_MAX} keywords, each a word of letters or digits` });
      }
    }
    if (errors.length) throw new ValidationProblem(errors);
    const normalized = (list?: string[]) => (list ? [...new Set(list.map((k) => keywordOf(k)!))] : undefined);
    return this.repo.updateSettings(userId, {
      marketing_requires_opt_in: s.marketing_requires_opt_in,
      opt_out_keywords: normalized(s.opt_out_keywords),
      opt_in_keywords: normalized(s.opt_in_keywords),
    });
  }

  /**
   * The campaign estimate's dry run of the send's check: for each route, the first channel consent
   * allows a send of `category` on, or -1 with the first refusal's reason; one read of every
   * address's records for the request.
   */
  async dryRunRoutes(req: CampaignConsentRequest): Promise<CampaignConsentResult> {
    const errors: FieldError[] = [];
    if (!isUuid(req.user_id)) errors.push({ field: 'user_id', message: 'must be a user id' });
    if (!(MESSAGE_CATEGORIES as readonly string[]).includes(req.category)) {
      errors.push({ field: 'category', message: `must be one of ${MESSAGE_CATEGORIES.join(', ')}` });
    }
    const routes = req.routes;
    if (!Array.isArray(routes) || routes.length > CONSENT_ROUTES_MAX) {
      errors.push({ field: 'routes', message: `must be at most ${CONSENT_ROUTES_MAX} routes` });
    } else {
      routes.forEach((route, i) => {
        if (!isRoute(route)) {
          errors.push({ field: `routes[${i}]`, message: `must be 1 to 3 steps, each a channel and an address` });
        }
      });
    }
    if (errors.length) throw new ValidationProblem(errors.slice(0, 20));
    if (!this.enforced) return { allowed: routes.map(() => ({ index: 0 })) };
    const addressKey = (channel: string, to: string) => `${channel}\n${to}`;
    const unique = new Map<string, { channel: GatewaySendChannel; address: string }>();
    for (const route of routes)
      for (const s of route) unique.set(addressKey(s.channel, s.to), { channel: s.channel, address: s.to });
    const addresses = [...unique.values()];
    const [read, settings] = await Promise.all([this.read(req.user_id, addresses), this.settings(req.user_id)]);
    const records = new Map<string, RecordedConsent[]>();
    addresses.forEach((a, i) => {
      // read answers every purpose of each address, in the order asked.
      const states = read.states.slice(i * CONSENT_PURPOSES.length, (i + 1) * CONSENT_PURPOSES.length);
      records.set(
        addressKey(a.channel, a.address),
        states
          .filter((s) => s.state !== 'unknown' && s.since !== null && s.source !== null)
          .map((s) => ({
            purpose: s.purpose,
            state: s.state as RecordedConsent['state'],
            source: s.source!,
            since: new Date(s.since! * 1000),
          })),
      );
    });
    const category = req.category as MessageCategory;
    return {
      allowed: routes.map((route) => {
        let reason: 'opted_out' | 'consent_required' | undefined;
        for (let i = 0; i < route.length; i++) {
          const refusal = consentRefusal(
            route[i].channel,
            category,
            records.get(addressKey(route[i].channel, route[i].to)) ?? [],
            settings.marketing_requires_opt_in,
          );
          if (!refusal) return { index: i };
          reason ??= refusal.slug === 'consent-required' ? 'consent_required' : 'opted_out';
        }
        return { index: -1, reason };
      }),
    };
  }

  /** The records of one address as a send would see them (signals use it to skip needless writes). */
  async recordsOf(userId: string, channel: string, address: string): Promise<RecordedConsent[]> {
    return (await this.repo.forSend({ userId, channel, key: this.keys.keyOf(channel, address) })).records;
  }

  private keyed(userId: string, addresses: ConsentAddress[]): KeyedAddress[] {
    return addresses.map((a) => ({ userId, channel: a.channel, key: this.keys.keyOf(a.channel, a.address, a.kind) }));
  }

  /** `contact.opted_out` for an opt-out, `contact.opted_in` for an opt-in or a lifted opt-out (state `unknown`). */
  private eventOf(userId: string, c: ConsentChange, at: Date): OutboxEntry {
    const type = c.state === 'opted_out' ? 'contact.opted_out' : 'contact.opted_in';
    const event: EventEnvelope<ContactConsentEventData> = {
      id: newEventId(),
      type,
      created_at: unixSeconds(at),
      channel: c.channel,
      app_id: null,
      user_id: userId,
      data: {
        channel: c.channel,
        address: c.address,
        purpose: c.purpose,
        state: c.state,
        source: c.source,
        evidence: c.evidence ?? null,
        since: unixSeconds(at),
      },
    };
    return { id: event.id, subject: this.topology.eventSubject(type), payload: event };
  }
}

function distinct(addresses: KeyedAddress[]): KeyedAddress[] {
  return [...new Map(addresses.map((a) => [keyOfAddress(a), a])).values()];
}

const oneOf = (list: readonly string[], v: unknown) => typeof v === 'string' && list.includes(v);

function changeErrors(c: ConsentChange, at: string): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof c !== 'object' || c === null) return [{ field: at, message: 'must be an object' }];
  if (!oneOf(GATEWAY_SEND_CHANNELS, c.channel))
    errors.push({ field: `${at}.channel`, message: `must be one of ${GATEWAY_SEND_CHANNELS.join(', ')}` });
  if (typeof c.address !== 'string' || !c.address.trim() || c.address.length > ADDRESS_MAX)
    errors.push({ field: `${at}.address`, message: `must be 1 to ${ADDRESS_MAX} characters` });
  if (!oneOf(CONSENT_PURPOSES, c.purpose))
    errors.push({ field: `${at}.purpose`, message: `must be one of ${CONSENT_PURPOSES.join(', ')}` });
  if (!oneOf(CONSENT_STATES, c.state))
    errors.push({ field: `${at}.state`, message: `must be one of ${CONSENT_STATES.join(', ')}` });
  if (!oneOf(CONSENT_SOURCES, c.source))
    errors.push({ field: `${at}.source`, message: `must be one of ${CONSENT_SOURCES.join(', ')}` });
  if (c.evidence !== undefined && c.evidence !== null && typeof c.evidence !== 'string')
    errors.push({ field: `${at}.evidence`, message: 'must be a string' });
  return errors;
}
