import { applyAddressSets } from './contact-addresses';
import { contactsCsv } from './contacts-export';
import { parseContactInput } from './contact-fields';
import type { ContactRow, ContactsRepository } from './contacts.repository';
import { EMPTY_CONTACT } from './contacts.service';
import { checkCsvHeader, csvRow } from './imports/import-rows';

const contact = (
  id: string,
  attributes: Record<string, string | number>,
  addresses: ContactRow['addresses'] = [],
): ContactRow => ({
  ...EMPTY_CONTACT,
  id,
  account_id: 'a',
  external_id: id,
  addresses,
  attributes,
  created_at: new Date(0),
  updated_at: new Date(0),
});

/** The export of `rows` with these attribute keys in use, as its header and records. */
async function exported(rows: ContactRow[], keys: string[] = []): Promise<{ header: string[]; records: string[][] }> {
  const repo = {
    attributeKeys: async () => keys,
    all: async function* () {
      yield rows;
    },
  } as unknown as ContactsRepository;
  let csv = '';
  for await (const chunk of await contactsCsv(repo, 'a', {}, 'UTC')) csv += String(chunk);
  const [header, ...records] = csv
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  return { header, records };
}

describe('contacts CSV export', () => {
  it("writes each contact's own attributes only: a key another contact has is empty, never inherited", async () => {
    const rows = [contact('c1', { constructor: 'x', toString: 'y' }), contact('c2', { plan: 'gold' })];
    const { header, records } = await exported(rows, ['constructor', 'plan', 'toString']);
    const at = header.indexOf('attr.constructor');
    expect(header.slice(at, at + 3)).toEqual(['attr.constructor', 'attr.plan', 'attr.toString']);
    expect(records[1].join(',')).not.toMatch(/native code|object Object/);
    expect(records[1].slice(at, at + 3)).toEqual(['', 'gold', '']);
  });

  it("has a column per channel's address kind, the primary ones named as before, and a WhatsApp user id imports back", async () => {
    const addresses = [
      { channel: 'whatsapp', kind: 'phone', value: '79990004401' },
      { channel: 'whatsapp', kind: 'user_id', value: 'US.13491208655302741918' },
      { channel: 'telegram', kind: 'username', value: '@anna_shop' },
    ];
    const { header, records } = await exported([contact('c1', {}, addresses), contact('c2', {})]);
    expect(header.slice(3, 9)).toEqual([
      'whatsapp',
      'whatsapp:user_id',
      'whatsapp:username',
      'telegram',
      'telegram:username',
      'max',
    ]);
    expect(records.map((r) => r.slice(3, 9))).toEqual([
      ['79990004401', 'US.13491208655302741918', '', '', '@anna_shop', ''],
      ['', '', '', '', '', ''],
    ]);
    // Read back by the import: the same addresses, the primary one still under `whatsapp`.
    expect(() => checkCsvHeader(header)).not.toThrow();
    const row = csvRow(header, records[0], 1);
    expect(row.contact.identities).toEqual({
      whatsapp: '79990004401',
      'whatsapp:user_id': 'US.13491208655302741918',
      'telegram:username': '@anna_shop',
    });
    const { input, errors } = parseContactInput(row.contact);
    expect(errors).toEqual([]);
    expect(applyAddressSets([], input.addressSets ?? [])).toEqual(addresses);
  });

  it('refuses an attribute named __proto__ rather than dropping it', () => {
    const { errors } = parseContactInput(JSON.parse('{"attributes":{"__proto__":"x","ok":"y"}}'));
    expect(errors).toEqual([{ field: 'attributes.__proto__', message: 'is a reserved name' }]);
  });
});
