import type { ContactRow } from '../contacts.repository';
import { EMPTY_CONTACT } from '../contacts.service';
import { batchKeys, parseRows, resolveBatch as resolveParsed } from './import-batch';
import type { ImportRow } from './import-rows';
import { checkCsvHeader, csvRow, ImportFileError, ndjsonRow } from './import-rows';

const header = ['external_id', 'name', 'whatsapp', 'telegram', 'lists', 'attr.plan', 'consent.marketing'];
const row = (n: number, cells: string[]) => csvRow(header, cells, n);
const resolveBatch = (rows: ImportRow[], existing: ContactRow[]) => resolveParsed(parseRows(rows), existing);
const stored = (over: Partial<ContactRow>): ContactRow => ({
  id: '0192f0c4-a0f8-7cc3-a1f0-000000000001',
  account_id: 'a',
  ...EMPTY_CONTACT,
  created_at: new Date(0),
  updated_at: new Date(0),
  ...over,
});

describe('import rows', () => {
  it('reads a CSV row into the API fields, leaving empty cells out', () => {
    expect(row(1, ['crm-1', 'Ann', '79990001122', '', 'a; b', 'gold', 'opted_out'])).toEqual({
      row: 1,
      contact: {
        external_id: 'crm-1',
        name: 'Ann',
        identities: { whatsapp: '79990001122' },
        lists: ['a', 'b'],
        attributes: { plan: 'gold' },
      },
      consent: { marketing: 'opted_out' },
    });
    expect(row(2, ['x', 'y']).error).toEqual({ field: 'row', message: 'has 2 cells where the header has 7' });
  });

  it('refuses unknown and repeated columns, and reads past an export-only column', () => {
    expect(() => checkCsvHeader(['external_id', 'email'])).toThrow(ImportFileError);
    expect(() => checkCsvHeader(['name', 'name'])).toThrow(/twice/);
    expect(() => checkCsvHeader(['consent.sms'])).toThrow(/unknown column/);
    expect(() => checkCsvHeader(['id', 'external_id', 'attr.x', 'consent.all', 'created_at'])).not.toThrow();
    expect(csvRow(['id', 'name'], ['0192', 'Ann'], 1).contact).toEqual({ name: 'Ann' });
  });

  it('reads an NDJSON line, with its consent apart', () => {
    expect(ndjsonRow('{"name":"Ann","consent":{"all":"opted_out"}}', 3)).toEqual({
      row: 3,
      contact: { name: 'Ann' },
      consent: { all: 'opted_out' },
    });
    expect(ndjsonRow('[1]', 4).error?.field).toBe('row');
    expect(ndjsonRow('{"consent":"yes"}', 5).error?.field).toBe('consent');
  });
});

describe('an import batch', () => {
  it('creates, then finds the contact again by external id within the batch and by identity', () => {
    const r = resolveBatch(
      [
        row(1, ['crm-1', 'Ann', '79990001122', '', '', '', '']),
        row(2, ['crm-1', 'Anna', '', '', '', '', '']),
        row(3, ['', '', '79990001122', '42', '', '', '']),
      ],
      [],
    );
    expect(r.counts).toEqual({ rows: 3, created: 1, updated: 2, unchanged: 0, rejected: 0 });
    expect(r.inserts).toHaveLength(1);
    expect(r.inserts[0]).toMatchObject({
      external_id: 'crm-1',
      name: 'Anna',
      addresses: [
        { channel: 'whatsapp', kind: 'phone', value: '79990001122' },
        { channel: 'telegram', kind: 'chat_id', value: '42' },
      ],
    });
    expect(r.updates).toEqual([]);
  });

  it('changes nothing when the rows say what is stored', () => {
    const existing = stored({ external_id: 'crm-1', name: 'Ann', attributes: { z: '1', plan: 'gold' }, lists: ['a'] });
    const r = resolveBatch([row(1, ['crm-1', 'Ann', '', '', 'a', 'gold', ''])], [existing]);
    expect(r.counts).toMatchObject({ unchanged: 1, updated: 0, created: 0 });
    expect(r.updates).toEqual([]);
  });

  it('rejects a row whose identity belongs to another contact, or whose identities match two', () => {
    const a = stored({
      id: 'a',
      external_id: 'crm-a',
      addresses: [{ channel: 'whatsapp', kind: 'phone', value: '79990000001' }],
    });
    const b = stored({
      id: 'b',
      external_id: 'crm-b',
      addresses: [{ channel: 'telegram', kind: 'chat_id', value: '77' }],
    });
    const r = resolveBatch(
      [row(1, ['crm-a', '', '', '77', '', '', '']), row(2, ['', '', '79990000001', '77', '', '', ''])],
      [a, b],
    );
    expect(r.counts).toMatchObject({ rejected: 2, updated: 0 });
    expect(r.rejections).toEqual([
      {
        row: 1,
        external_id: 'crm-a',
        field: 'identities.telegram',
        reason: 'belongs to another contact of the account',
      },
      { row: 2, external_id: null, field: 'identities', reason: 'match two different contacts' },
    ]);
  });

  it('rejects a row with no external id or identity, and every bad field of a row', () => {
    const r = resolveBatch(
      [row(1, ['', 'Nobody', '', '', '', '', '']), row(2, ['crm-2', '', '+7', 'x', '', '', 'maybe'])],
      [],
    );
    expect(r.rejections.map((x) => [x.row, x.field])).toEqual([
      [1, 'row'],
      [2, 'identities.whatsapp'],
      [2, 'identities.telegram'],
      [2, 'consent.marketing'],
    ]);
    expect(r.inserts).toEqual([]);
  });

  it("asks for consent on each of the contact's addresses, as an import", () => {
    const r = resolveBatch([row(7, ['crm-1', '', '79990001122', '42', '', '', 'opted_out'])], []);
    expect(r.consent.map((c) => [c.row, c.field, c.change.channel, c.change.source])).toEqual([
      [7, 'consent.marketing', 'whatsapp', 'import'],
      [7, 'consent.marketing', 'telegram', 'import'],
    ]);
  });

  it('caps the attributes of the contact as merged: rows adding keys stop at 50, each one past it rejected', () => {
    const adding = (n: number, from: number, count: number) =>
      ndjsonRow(
        JSON.stringify({
          external_id: 'crm-1',
          attributes: Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${from + i}`, 'v'.repeat(250)])),
        }),
        n,
      );
    const r = resolveBatch([adding(1, 0, 30), adding(2, 30, 20), adding(3, 50, 1), adding(4, 0, 5)], []);
    expect(r.counts).toMatchObject({ created: 1, updated: 1, unchanged: 1, rejected: 1 });
    expect(r.rejections).toEqual([
      { row: 3, external_id: 'crm-1', field: 'attributes', reason: 'would give the contact 51 attributes: at most 50' },
    ]);
    expect(Object.keys(r.inserts[0].attributes)).toHaveLength(50);

    const existing = stored({
      external_id: 'crm-1',
      attributes: Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 1])),
    });
    const again = resolveBatch([adding(1, 100, 2), adding(2, 100, 1)], [existing]);
    expect(again.rejections.map((x) => [x.row, x.field])).toEqual([[1, 'attributes']]);
    expect(Object.keys(again.updates[0].attributes)).toHaveLength(50);
  });

  it('matches only values the checks accept: a NUL never reaches the query, its row is rejected', () => {
    const rows = parseRows([
      ndjsonRow('{"external_id":"crm-1","name":"Ann"}', 1),
      ndjsonRow('{"external_id":"crm\\u0000-2","identities":{"whatsapp":"7999\\u00000001122"}}', 2),
      ndjsonRow('{"identities":{"telegram":"42"}}', 3),
    ]);
    expect(batchKeys(rows)).toEqual({
      externalIds: ['crm-1'],
      addresses: [{ channel: 'telegram', kind: 'chat_id', value: '42' }],
    });
    expect(resolveParsed(rows, []).rejections.map((x) => [x.row, x.field])).toEqual([
      [2, 'external_id'],
      [2, 'identities.whatsapp'],
    ]);
  });
});
