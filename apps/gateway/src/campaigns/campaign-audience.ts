import { Injectable } from '@nestjs/common';
import { CampaignAudience, CampaignDefinition, CampaignRecipientInput, EXTERNAL_PREFIX } from '@app/contracts';
import { UnprocessableProblem } from '@app/server';
import { AuthenticatedAccount } from '../accounts/authenticated-account';
import { ConnectionsRepository } from '../connections/connections.repository';
import { AudienceContact, ContactFilter, ContactsRepository, PAGE_BYTES } from '../contacts/contacts.repository';
import { identitiesOf } from '../contacts/contact-addresses';
import { contactRoute, LiveSenders, liveSendersOf } from '../messages/send-route';
import { CompiledParam, compileParams, fillParams } from './campaign-params';
import { contactVariant, VariantAssignment, variantAssignment } from './campaign-variants';
import { CampaignEngagementFilter } from './campaign-engagement';

/** Contacts read per query: the audience is paged by id, never held whole. */
export const AUDIENCE_PAGE = 2_000;
/** Unknown contacts named in a 422 at most. */
const UNKNOWN_NAMED = 10;

interface Resolution {
  senders: LiveSenders;
  params: CompiledParam[];
  /** With variants: how each contact is assigned one, and each one's params. */
  variants: VariantAssignment | null;
  /** The attribute keys the params name: the only ones read. */
  attributeKeys: string[];
  channels: CampaignDefinition['channels'];
  accountZone: string;
}

/**
 * Resolves a campaign's audience from the account's contacts, the same way for an estimate and a
 * launch: pages of recipients in audience order (seq from 1), each with its failover route, its
 * params filled in and its time zone, or the reason it is excluded (`duplicate`, `no_identity`,
 * `missing_param`).
 */
@Injectable()
export class CampaignAudienceResolver {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly connections: ConnectionsRepository,
    private readonly engagement: CampaignEngagementFilter,
  ) {}

  async *resolve(
    account: AuthenticatedAccount,
    definition: CampaignDefinition & { id: string },
  ): AsyncGenerator<CampaignRecipientInput[]> {
    const params = compileParams(definition.params ?? []);
    const variants = variantAssignment(definition);
    const r: Resolution = {
      senders: await liveSendersOf(this.connections, account.id, definition.channels),
      params,
      variants,
      attributeKeys: attributeKeysOf([...params, ...(variants?.params.flat() ?? [])]),
      channels: definition.channels,
      accountZone: account.timeZone ?? 'UTC',
    };
    let seq = 0;
    const audience = definition.audience;
    if ('contact_ids' in audience) {
      await this.checkKnown(account.id, audience.contact_ids);
      const seen = new Set<string>();
      const chunk = refsPerRead(r.attributeKeys.length);
      for (let i = 0; i < audience.contact_ids.length; i += chunk) {
        const refs = audience.contact_ids.slice(i, i + chunk);
        const found = await this.byRef(account.id, refs, r.attributeKeys);
        const page: CampaignRecipientInput[] = [];
        for (const ref of refs) {
          // A contact erased since the check is left out.
          const contact = found.get(refKey(ref));
          if (!contact) continue;
          const duplicate = seen.has(contact.id);
          seen.add(contact.id);
          page.push(recipientOf(++seq, contact, r, duplicate));
        }
        if (page.length) yield page;
      }
      return;
    }
    // An engagement filter (docs/campaigns.md#engagement-filters) keeps part of each page.
    const engaged = await this.engagement.prepare(account, audience);
    for await (const contacts of this.contacts.audience(
      account.id,
      filterOf(audience),
      r.attributeKeys,
      AUDIENCE_PAGE,
    )) {
      const kept = engaged ? await engaged(contacts) : contacts;
      yield kept.map((contact) => recipientOf(++seq, contact, r, false));
    }
  }

  /** 422 naming up to 10 of the refs that name no contact of the account. */
  private async checkKnown(accountId: string, refs: string[]): Promise<void> {
    const unknown: string[] = [];
    let missing = 0;
    for (let i = 0; i < refs.length; i += AUDIENCE_PAGE) {
      const chunk = refs.slice(i, i + AUDIENCE_PAGE);
      const found = await this.byRef(accountId, chunk, []);
      for (const ref of chunk) {
        if (found.has(refKey(ref))) continue;
        missing++;
        if (unknown.length < UNKNOWN_NAMED) unknown.push(ref);
      }
    }
    if (missing) {
      throw new UnprocessableProblem(
        'unknown-contacts',
        'Unknown contacts',
        `${missing} of the audience's contacts ${missing === 1 ? 'is' : 'are'} not contacts of the account: ${unknown.join(', ')}${missing > unknown.length ? ', …' : ''}.`,
        { unknown },
      );
    }
  }

  /** The account's contacts named by these refs, keyed by refKey, with the attributes named. */
  private async byRef(
    accountId: string,
    refs: string[],
    attributeKeys: string[],
  ): Promise<Map<string, AudienceContact>> {
    const ids = refs.filter((r) => !r.startsWith(EXTERNAL_PREFIX)).map((r) => r.toLowerCase());
    const externals = refs.filter((r) => r.startsWith(EXTERNAL_PREFIX)).map((r) => r.slice(EXTERNAL_PREFIX.length));
    const rows = await this.contacts.findByRefs(accountId, ids, externals, attributeKeys);
    const out = new Map<string, AudienceContact>();
    for (const row of rows) {
      out.set(row.id, row);
      if (row.external_id !== null) out.set(`${EXTERNAL_PREFIX}${row.external_id}`, row);
    }
    return out;
  }
}

/**
 * Named contacts read at once: as many as fit PAGE_BYTES with every attribute the params name at
 * its largest (a key and a 256-character value, 4 bytes a character at most), 2,000 at most.
 */
const refsPerRead = (attributeKeys: number): number =>
  Math.max(50, Math.min(AUDIENCE_PAGE, Math.floor(PAGE_BYTES / (512 + attributeKeys * 1_100))));

/** The attribute keys the params refer to, each once. */
function attributeKeysOf(params: readonly CompiledParam[]): string[] {
  const keys = new Set<string>();
  for (const param of params)
    for (const part of param) if (typeof part !== 'string' && 'attribute' in part) keys.add(part.attribute);
  return [...keys];
}

/** How a ref is looked up: an id in lower case, ext:<external id> as given. */
const refKey = (ref: string): string => (ref.startsWith(EXTERNAL_PREFIX) ? ref : ref.toLowerCase());

function filterOf(audience: Exclude<CampaignAudience, { contact_ids: string[] }>): ContactFilter {
  if ('list' in audience) return { list: audience.list };
  return { lists: audience.filter.lists ?? [], attributes: audience.filter.attributes ?? {} };
}

/** One contact as a recipient: its route, params and zone, or why it is excluded. */
export function recipientOf(
  seq: number,
  contact: AudienceContact,
  r: Resolution,
  duplicate: boolean,
): CampaignRecipientInput {
  const time_zone = contact.time_zone ?? r.accountZone;
  const { variant, params: compiled } = contactVariant(r.variants, contact.id, r.params);
  const assigned = variant === undefined ? {} : { variant };
  const excluded = (skip: NonNullable<CampaignRecipientInput['skip']>): CampaignRecipientInput => ({
    seq,
    contact_id: contact.id,
    external_id: contact.external_id,
    time_zone,
    route: [],
    params: [],
    skip,
    ...assigned,
  });
  if (duplicate) return excluded('duplicate');
  const route = contactRoute(identitiesOf(contact.addresses), r.channels, r.senders);
  if (!route.length) return excluded('no_identity');
  const params = fillParams(compiled, contact);
  if (!params) return excluded('missing_param');
  return { seq, contact_id: contact.id, external_id: contact.external_id, time_zone, route, params, ...assigned };
}
