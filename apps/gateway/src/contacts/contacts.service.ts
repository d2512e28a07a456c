import { Injectable } from '@nestjs/common';
import {
  CONSENT_PURPOSES,
  CONSENT_RPC,
  CONSENT_STATES,
  ConsentAddress,
  ConsentChange,
  ContactAddress,
  ConsentHistoryEntry,
  ConsentStateView,
  EXTERNAL_PREFIX,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  isUuid,
  unixSeconds,
} from '@app/contracts';
import { isPgError, PG_ERROR } from '@app/database';
import { RpcClient } from '@app/messaging';
import {
  ConflictProblem,
  FieldError,
  ForbiddenProblem,
  NotFoundProblem,
  UnprocessableProblem,
  ValidationProblem,
  WorkLimit,
} from '@app/server';
import { GatewayConfig } from '../config';
import { AuthenticatedAccount, billedUser } from '../accounts/authenticated-account';
import { finished, Readable } from 'node:stream';
import { AttributeValue, ContactInput, parseContactInput } from './contact-fields';
import { addressCapError, addressField, applyAddressSets, identitiesOf } from './contact-addresses';
import { contactsCsv } from './contacts-export';
import { ContactFilter, ContactRow, ContactsRepository, ContactValues } from './contacts.repository';

/** A contact as the API shows it. */
export interface ContactView {
  id: string;
  external_id: string | null;
  name: string | null;
  identities: Record<GatewaySendChannel, string | null>;
  /** Every address of the contact, by channel and kind (the primary kind first). */
  addresses: ContactAddress[];
  /** The contact's own, or the account's when it names none. */
  time_zone: string;
  language: string | null;
  attributes: Record<string, AttributeValue>;
  lists: string[];
  /** Unix seconds */
  created_at: number;
  /** Unix seconds */
  updated_at: number;
}

export interface ContactConsentView {
  states: ConsentStateView[];
  history: ConsentHistoryEntry[];
}

const CONSENT_RPC_TIMEOUT_MS = 5_000;
const HISTORY_LIMIT = 100;

/** A contact with no field set. */
export const EMPTY_CONTACT: ContactValues = {
  external_id: null,
  name: null,
  addresses: [],
  time_zone: null,
  language: null,
  attributes: {},
  lists: [],
};

/** The stored values after `input` is applied to `base` (absent fields kept, null cleared). */
export function mergeContact(base: ContactValues, input: ContactInput): ContactValues {
  const v: ContactValues = { ...base };
  if (input.external_id !== undefined) v.external_id = input.external_id;
  if (input.name !== undefined) v.name = input.name;
  if (input.time_zone !== undefined) v.time_zone = input.time_zone;
  if (input.language !== undefined) v.language = input.language;
  if (input.attributes !== undefined) v.attributes = input.attributes;
  if (input.lists !== undefined) v.lists = input.lists;
  v.addresses = applyAddressSets(input.addresses ?? base.addresses, input.addressSets ?? []);
  return v;
}

export const valuesOf = (row: ContactRow): ContactValues => ({
  external_id: row.external_id,
  name: row.name,
  addresses: row.addresses,
  time_zone: row.time_zone,
  language: row.language,
  attributes: row.attributes,
  lists: row.lists,
});

/** Whether two contacts' fields are the same (attributes in any key order). */
export function sameContact(a: ContactValues, b: ContactValues): boolean {
  const canonical = (v: ContactValues) =>
    JSON.stringify({ ...v, attributes: Object.entries(v.attributes).sort(([x], [y]) => (x < y ? -1 : 1)) });
  return canonical(a) === canonical(b);
}

/** The addresses of a contact as consent keys them (the kind named where it is not the channel's primary). */
export const addressesOf = (v: ContactValues): ConsentAddress[] =>
  v.addresses.map((a) => ({
    channel: a.channel as GatewaySendChannel,
    address: a.value,
    ...(addressField(a.channel, a.kind) !== a.channel ? { kind: a.kind } : {}),
  }));

/**
 * What a unique index's violation says was taken: the external id, or the address its detail names
 * (`Key (account_id, channel, kind, value)=(…, whatsapp, phone, …)`) as its identity field is named.
 */
function conflictField(constraint: string | undefined, detail: string | undefined): string {
  if (constraint === 'contacts_external_id') return 'external_id';
  const m = /=\([^,]*, ([^,]*), ([^,]*), /.exec(detail ?? '');
  return constraint === 'contact_addresses_value' && m ? addressField(m[1], m[2]) : 'address';
}

/**
 * Contacts of a gateway account (docs/contacts.md): create, read, page, update, erase, and their
 * consent, which the api keeps per address (read and changed over request/reply).
 */
@Injectable()
export class ContactsService {
  /** CSV exports streaming at once in this process, and per account (docs/operations.md#heavy-work). */
  private readonly exports: WorkLimit;

  constructor(
    private readonly contacts: ContactsRepository,
    private readonly rpc: RpcClient,
    config: GatewayConfig,
  ) {
    this.exports = new WorkLimit({
      what: 'contact exports',
      atOnce: config.CONTACT_EXPORTS_AT_ONCE,
      waiting: 4 * config.CONTACT_EXPORTS_AT_ONCE,
      waitMs: 10_000,
      perKey: config.CONTACT_EXPORTS_PER_ACCOUNT,
      retryAfterSeconds: 10,
    });
  }

  view(row: ContactRow, account: AuthenticatedAccount): ContactView {
    return {
      id: row.id,
      external_id: row.external_id,
      name: row.name,
      identities: identitiesOf(row.addresses),
      addresses: row.addresses,
      time_zone: row.time_zone ?? account.timeZone ?? 'UTC',
      language: row.language,
      attributes: row.attributes,
      lists: row.lists,
      created_at: unixSeconds(new Date(row.created_at)),
      updated_at: unixSeconds(new Date(row.updated_at)),
    };
  }

  async create(account: AuthenticatedAccount, body: unknown): Promise<ContactRow> {
    const values = withinCap(mergeContact(EMPTY_CONTACT, parsed(body, account)));
    return this.conflictsNamed(() => this.contacts.insert(account.id, values));
  }

  async update(account: AuthenticatedAccount, ref: string, body: unknown): Promise<ContactRow> {
    const input = parsed(body, account);
    const row = await this.get(account, ref);
    const values = withinCap(mergeContact(valuesOf(row), input));
    return this.conflictsNamed(() => this.contacts.update(row.id, values));
  }

  /** Erases the contact; its opt-outs stay with the api, keyed by a hash of each address. */
  async remove(account: AuthenticatedAccount, ref: string): Promise<void> {
    const row = await this.get(account, ref);
    await this.contacts.delete(row.id);
  }

  /** The account's contact by id or `ext:<external id>`: 404 when none, 403 when another account's. */
  async get(account: AuthenticatedAccount, ref: string): Promise<ContactRow> {
    let row: ContactRow | null = null;
    if (ref.startsWith(EXTERNAL_PREFIX)) {
      const external = ref.slice(EXTERNAL_PREFIX.length);
      if (external) row = await this.contacts.findByExternalId(account.id, external);
    } else if (isUuid(ref)) {
      row = await this.contacts.findById(ref.toLowerCase());
      if (row && row.account_id !== account.id) throw new ForbiddenProblem('The contact belongs to another account.');
    }
    if (!row) throw new NotFoundProblem('contact');
    return row;
  }

  async list(
    account: AuthenticatedAccount,
    filter: ContactFilter,
    cursor: string | null,
    limit: number,
  ): Promise<{ data: ContactRow[]; next_cursor: string | null }> {
    // One row past the limit says whether more follow; a page its bytes cut short says so itself.
    const page = await this.contacts.page(account.id, filter, cursor, limit + 1);
    const data = page.rows.slice(0, limit);
    return { data, next_cursor: page.more && data.length ? data[data.length - 1].id : null };
  }

  /**
   * Every contact matching the filter as CSV, streamed (docs/contacts.md#export), holding one of the
   * process's export places until the stream ends or its reader goes away.
   */
  async exportCsv(account: AuthenticatedAccount, filter: ContactFilter): Promise<Readable> {
    const release = await this.exports.enter(account.id);
    try {
      const csv = await contactsCsv(this.contacts, account.id, filter, account.timeZone ?? 'UTC');
      finished(csv, release);
      return csv;
    } catch (err) {
      release();
      throw err;
    }
  }

  /** The contact's consent on each of its addresses and the history of changes, newest first. */
  async consent(account: AuthenticatedAccount, ref: string): Promise<ContactConsentView> {
    const row = await this.get(account, ref);
    const userId = ownerOf(account);
    const addresses = addressesOf(valuesOf(row));
    if (!addresses.length) return { states: [], history: [] };
    const opts = { timeoutMs: CONSENT_RPC_TIMEOUT_MS, unavailable: 'Consent cannot be read right now; retry later.' };
    const [read, history] = await Promise.all([
      this.rpc.call(CONSENT_RPC.read, { user_id: userId, addresses }, opts),
      this.rpc.call(CONSENT_RPC.history, { user_id: userId, addresses, limit: HISTORY_LIMIT }, opts),
    ]);
    return { states: read.states, history: history.entries };
  }

  /**
   * `PUT /v1/contacts/{id}/consent`: one purpose's state on one channel of the contact, or on each
   * of its channels when none is named. A change the rules refuse is 422 naming why.
   */
  async setConsent(account: AuthenticatedAccount, ref: string, body: unknown): Promise<ContactConsentView> {
    const row = await this.get(account, ref);
    const userId = ownerOf(account);
    const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<
      string,
      unknown
    >;
    const errors: FieldError[] = Object.keys(b)
      .filter((k) => !['channel', 'purpose', 'state', 'evidence'].includes(k))
      .map((k) => ({ field: k, message: 'is not a field' }));
    if (b.channel !== undefined && !(GATEWAY_SEND_CHANNELS as readonly unknown[]).includes(b.channel))
      errors.push({ field: 'channel', message: `must be one of ${GATEWAY_SEND_CHANNELS.join(', ')}` });
    if (!(CONSENT_PURPOSES as readonly unknown[]).includes(b.purpose))
      errors.push({ field: 'purpose', message: `must be one of ${CONSENT_PURPOSES.join(', ')}` });
    if (!(CONSENT_STATES as readonly unknown[]).includes(b.state))
      errors.push({ field: 'state', message: `must be one of ${CONSENT_STATES.join(', ')}` });
    if (b.evidence !== undefined && (typeof b.evidence !== 'string' || b.evidence.length > 500))
      errors.push({ field: 'evidence', message: 'must be text of at most 500 characters' });
    if (errors.length) throw new ValidationProblem(errors);
    const addresses = addressesOf(valuesOf(row)).filter((a) => b.channel === undefined || a.channel === b.channel);
    if (!addresses.length) {
      throw new UnprocessableProblem(
        'no-identity',
        'No identity',
        b.channel ? `The contact has no ${String(b.channel)} identity.` : 'The contact has no identity on any channel.',
      );
    }
    const changes: ConsentChange[] = addresses.map((a) => ({
      ...a,
      purpose: b.purpose as ConsentChange['purpose'],
      state: b.state as ConsentChange['state'],
      source: 'api',
      evidence: (b.evidence as string | undefined) ?? null,
    }));
    const result = await this.rpc.call(
      CONSENT_RPC.apply,
      { user_id: userId, changes },
      { timeoutMs: CONSENT_RPC_TIMEOUT_MS, unavailable: 'Consent cannot be changed right now; nothing was changed.' },
    );
    const refused = result.outcomes.map((o, i) => (o.refused ? `${changes[i].channel}: ${o.refused}` : null));
    if (refused.some(Boolean)) {
      throw new UnprocessableProblem(
        'consent-change-refused',
        'Consent change refused',
        refused.filter(Boolean).join('; '),
      );
    }
    return this.consent(account, row.id);
  }

  private async conflictsNamed(write: () => Promise<ContactRow>): Promise<ContactRow> {
    try {
      return await write();
    } catch (err) {
      if (!isPgError(err, PG_ERROR.uniqueViolation)) throw err;
      const pg = (err as { driverError?: { constraint?: string; detail?: string } }).driverError;
      const field = conflictField(pg?.constraint, pg?.detail);
      throw new ConflictProblem(
        'contact-exists',
        'Contact exists',
        `Another contact of the account has this ${field}.`,
      );
    }
  }
}

/** The values, or 422 when they hold more addresses than a contact may. */
function withinCap(values: ContactValues): ContactValues {
  const error = addressCapError(values.addresses);
  if (error) throw new UnprocessableProblem('too-many-addresses', 'Too many addresses', `The ${error.message}.`);
  return values;
}

function parsed(body: unknown, account: AuthenticatedAccount): ContactInput {
  const { input, errors } = parseContactInput(body, account.defaultRegion ?? null);
  if (errors.length) throw new ValidationProblem(errors);
  return input;
}

/** Consent belongs to the account's user (the business). */
export function ownerOf(account: AuthenticatedAccount): string {
  return billedUser(account, 'no consent records');
}
