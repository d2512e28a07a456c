import { CONSENT_STATES, ConsentChange, ConsentPurpose, ContactAddress } from '@app/contracts';
import { FieldError } from '@app/server';
import { addressCapError, addressField, addressKey, namedAddresses } from '../contact-addresses';
import { CONTACT_LIMITS, ContactInput, parseContactInput } from '../contact-fields';
import { newContactId } from '../contacts.repository';
import type { ContactRow, ContactValues } from '../contacts.repository';
import { addressesOf, EMPTY_CONTACT, mergeContact, sameContact, valuesOf } from '../contacts.service';
import type { BatchCounts, Rejection } from './contact-imports.repository';
import type { ImportRow } from './import-rows';

type Stored = ContactValues & { id: string };

/** What a batch of rows comes to: the writes, the counts, the rejected rows, the consent changes. */
export interface ResolvedBatch {
  inserts: Stored[];
  updates: Stored[];
  counts: BatchCounts;
  rejections: Rejection[];
  /** Consent changes, each with the row that asked for it. */
  consent: { row: number; external_id: string | null; field: string; change: ConsentChange }[];
}

/** An import row read as a contact's fields: its input and consent, or what is wrong with it. */
export interface ParsedRow {
  row: number;
  /** The external id the row gives, as written, valid or not. */
  externalId: string | null;
  input: ContactInput;
  consent: [ConsentPurpose, ConsentChange['state']][];
  /** The addressKey of each address the row gives. */
  identities: string[];
  errors: FieldError[];
}

/**
 * Each row checked as the API checks a contact (every bad field named; national phone numbers read
 * in `region`, the account's default), with its consent cells.
 */
export function parseRows(rows: ImportRow[], region: string | null = null): ParsedRow[] {
  return rows.map((r) => {
    const externalId = writtenExternalId(r.contact.external_id);
    if (r.error) return { row: r.row, externalId, input: {}, consent: [], identities: [], errors: [r.error] };
    const { input, errors } = parseContactInput(r.contact, region);
    const consent: ParsedRow['consent'] = [];
    for (const [purpose, state] of Object.entries(r.consent)) {
      if (!(CONSENT_STATES as readonly unknown[]).includes(state)) {
        errors.push({ field: `consent.${purpose}`, message: `must be one of ${CONSENT_STATES.join(', ')}` });
      } else if (purpose !== 'marketing' && purpose !== 'all') {
        errors.push({ field: `consent.${purpose}`, message: 'is not a purpose (marketing, all)' });
      } else consent.push([purpose, state as ConsentChange['state']]);
    }
    const identities = namedAddresses(input.addresses, input.addressSets).map(addressKey);
    if (!errors.length && !input.external_id && !identities.length) {
      errors.push({ field: 'row', message: 'needs an external_id or an identity (whatsapp, telegram, max)' });
    }
    return { row: r.row, externalId, input, consent, identities, errors };
  });
}

/** The external id a row gives, as written (what a report names a rejected row by), if it gives one. */
const writtenExternalId = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/**
 * The external ids and identities a batch may match: those of its valid rows only, as checked
 * (a value the checks refuse, a NUL say, never reaches a query).
 */
export function batchKeys(rows: ParsedRow[]): { externalIds: string[]; addresses: ContactAddress[] } {
  const keys = { externalIds: [] as string[], addresses: [] as ContactAddress[] };
  for (const r of rows) {
    if (r.errors.length) continue;
    if (r.input.external_id) keys.externalIds.push(r.input.external_id);
    keys.addresses.push(...namedAddresses(r.input.addresses, r.input.addressSets));
  }
  return keys;
}

const same = (a: Stored, b: Stored) => sameContact(a, b);

/**
 * Applies a batch's rows in order to the contacts they match (docs/contacts.md#imports): by
 * external_id when the row has one, otherwise by identity; a row matching none creates a contact.
 * A row that is invalid, names no external id or identity, matches two contacts, or gives an
 * identity another contact holds is rejected whole. Attributes given are merged into the
 * contact's; lists given replace them. A row that changes nothing counts as unchanged, so a
 * repeated import changes nothing.
 */
export function resolveBatch(rows: ParsedRow[], existing: ContactRow[]): ResolvedBatch {
  const contacts = new Map<string, Stored>();
  const byExternal = new Map<string, string>();
  const byIdentity = new Map<string, string>();
  const index = (c: Stored) => {
    if (c.external_id) byExternal.set(c.external_id, c.id);
    for (const a of c.addresses) byIdentity.set(addressKey(a), c.id);
  };
  const unindex = (c: Stored) => {
    if (c.external_id && byExternal.get(c.external_id) === c.id) byExternal.delete(c.external_id);
    for (const a of c.addresses) if (byIdentity.get(addressKey(a)) === c.id) byIdentity.delete(addressKey(a));
  };
  for (const row of existing) {
    const c = { ...valuesOf(row), id: row.id };
    contacts.set(c.id, c);
    index(c);
  }
  const original = new Map([...contacts].map(([id, c]) => [id, { ...c }]));
  const created = new Set<string>();
  const out: ResolvedBatch = {
    inserts: [],
    updates: [],
    counts: { rows: rows.length, created: 0, updated: 0, unchanged: 0, rejected: 0 },
    rejections: [],
    consent: [],
  };
  const reject = (r: ParsedRow, errors: { field: string; message: string }[]) => {
    out.counts.rejected += 1;
    for (const e of errors)
      out.rejections.push({ row: r.row, external_id: r.externalId, field: e.field, reason: e.message });
  };

  for (const r of rows) {
    const { input, consent, identities, errors } = r;
    if (errors.length) {
      reject(r, errors);
      continue;
    }
    let id: string | undefined;
    if (input.external_id) id = byExternal.get(input.external_id);
    else {
      const matched = new Set(identities.map((k) => byIdentity.get(k)).filter((x): x is string => !!x));
      if (matched.size > 1) {
        reject(r, [{ field: 'identities', message: 'match two different contacts' }]);
        continue;
      }
      id = [...matched][0];
    }
    const taken = identities.find((k) => {
      const holder = byIdentity.get(k);
      return holder !== undefined && holder !== id;
    });
    if (taken) {
      const [channel, kind] = taken.split('\n');
      reject(r, [
        { field: `identities.${addressField(channel, kind)}`, message: 'belongs to another contact of the account' },
      ]);
      continue;
    }
    const base = id ? contacts.get(id)! : null;
    const attributes = input.attributes && base ? { ...base.attributes, ...input.attributes } : input.attributes;
    // The cap holds for the contact as merged, not only for the row: rows adding keys one after
    // another never take a contact past it.
    const keys = attributes ? Object.keys(attributes).length : 0;
    if (keys > CONTACT_LIMITS.attributes) {
      reject(r, [
        {
          field: 'attributes',
          message: `would give the contact ${keys} attributes: at most ${CONTACT_LIMITS.attributes}`,
        },
      ]);
      continue;
    }
    const merged = mergeContact(base ?? EMPTY_CONTACT, { ...input, ...(attributes ? { attributes } : {}) });
    const capped = addressCapError(merged.addresses);
    if (capped) {
      reject(r, [capped]);
      continue;
    }
    const next: Stored = { ...merged, id: id ?? newContactId() };
    if (base) unindex(base);
    contacts.set(next.id, next);
    index(next);
    if (!id) {
      created.add(next.id);
      out.counts.created += 1;
    } else if (same(base!, next)) out.counts.unchanged += 1;
    else out.counts.updated += 1;
    for (const [purpose, state] of consent) {
      for (const a of addressesOf(next)) {
        out.consent.push({
          row: r.row,
          external_id: r.externalId,
          field: `consent.${purpose}`,
          change: { ...a, purpose, state, source: 'import', evidence: `import row ${r.row}` },
        });
      }
    }
  }
  for (const [id, c] of contacts) {
    if (created.has(id)) out.inserts.push(c);
    else if (!same(original.get(id)!, c)) out.updates.push(c);
  }
  return out;
}
