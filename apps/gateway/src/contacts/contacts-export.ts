import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { unixSeconds } from '@app/contracts';
import { addressColumns, firstAddress } from './contact-addresses';
import { CONTACT_LIMITS } from './contact-fields';
import { ContactFilter, ContactRow, ContactsRepository } from './contacts.repository';
import { LIST_SEPARATOR } from './imports/import-rows';

/**
 * Free text starting with = + - @ gets a leading ' so a spreadsheet does not run it as a formula.
 * Addresses are written as stored, so that they import back: their kinds allow no formula (a
 * negative chat id, a Telegram @username of letters, digits and _ only); ids and times never start so.
 */
export const spreadsheetSafe = (v: string): string => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);

/**
 * Rows as a CSV stream with a header line, pulled one at a time as the reader asks for more. A
 * reader that goes away (a client that disconnects) ends the reading of rows with it.
 */
export function csvStream(columns: string[], rows: AsyncIterable<string[]>): Readable {
  // Errors reach the reader through the returned stream; the callback has nothing more to do.
  return pipeline(Readable.from(rows), stringify({ header: true, columns }), () => undefined);
}

/** Most distinct attribute keys exported as columns. */
const EXPORT_ATTRIBUTE_KEYS = CONTACT_LIMITS.attributes * 4;

/**
 * The account's contacts as CSV, streamed a page at a time (never all in memory), in the import's
 * columns (so an export imports back unchanged) with `id` first and `created_at` and `updated_at`
 * (Unix seconds, as every time the gateway answers) last.
 */
export async function contactsCsv(
  contacts: ContactsRepository,
  accountId: string,
  filter: ContactFilter,
  accountZone: string,
): Promise<Readable> {
  const keys = await contacts.attributeKeys(accountId, EXPORT_ATTRIBUTE_KEYS);
  // A column per kind of address, holding the contact's first of that kind (as `identities` does).
  const addresses = addressColumns();
  const columns = [
    'id',
    'external_id',
    'name',
    ...addresses.map((a) => a.column),
    'time_zone',
    'language',
    'lists',
    ...keys.map((k) => `attr.${k}`),
    'created_at',
    'updated_at',
  ];
  const line = (c: ContactRow) => [
    c.id,
    spreadsheetSafe(c.external_id ?? ''),
    spreadsheetSafe(c.name ?? ''),
    ...addresses.map((a) => firstAddress(c.addresses, a.channel, a.kind) ?? ''),
    c.time_zone ?? accountZone,
    c.language ?? '',
    spreadsheetSafe(c.lists.join(LIST_SEPARATOR)),
    ...keys.map((k) => (Object.hasOwn(c.attributes, k) ? spreadsheetSafe(String(c.attributes[k])) : '')),
    String(unixSeconds(new Date(c.created_at))),
    String(unixSeconds(new Date(c.updated_at))),
  ];
  async function* lines(): AsyncGenerator<string[]> {
    for await (const page of contacts.all(accountId, filter)) for (const c of page) yield line(c);
  }
  return csvStream(columns, lines());
}
