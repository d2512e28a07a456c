import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { CONSENT_PURPOSES, ConsentPurpose } from '@app/contracts';
import { FieldError } from '@app/server';
import { isAddressColumn } from '../contact-addresses';

export type ImportFormat = 'csv' | 'ndjson';

/** One row of an import file: the contact's fields as the API takes them, and its consent cells. */
export interface ImportRow {
  /** 1 for the first row of data (the CSV header is not a row; every NDJSON line is one). */
  row: number;
  contact: Record<string, unknown>;
  consent: Partial<Record<ConsentPurpose, unknown>>;
  /** Why the row could not be read at all. */
  error?: FieldError;
  /** Its length in the file, in characters (what a batch of rows holds is counted by it). */
  chars?: number;
}

/** A file that cannot be read as an import (a bad header, broken CSV quoting). */
export class ImportFileError extends Error {}

/** Longest row, in characters: a contact is far smaller. */
export const MAX_ROW_CHARS = 64 * 1024;

const FIXED_COLUMNS = new Set(['external_id', 'name', 'time_zone', 'language', 'lists']);
/** Columns of an export that an import reads past (the platform assigns them). */
const EXPORT_ONLY_COLUMNS = new Set(['id', 'created_at', 'updated_at']);
const ATTRIBUTE_PREFIX = 'attr.';
const CONSENT_PREFIX = 'consent.';
/** Separator of list names in the CSV `lists` column. */
export const LIST_SEPARATOR = ';';

/** The columns a CSV import may have (docs/contacts.md#imports); an unknown one refuses the file. */
export function checkCsvHeader(header: string[]): void {
  const seen = new Set<string>();
  for (const column of header) {
    const known =
      FIXED_COLUMNS.has(column) ||
      isAddressColumn(column) ||
      EXPORT_ONLY_COLUMNS.has(column) ||
      (column.startsWith(ATTRIBUTE_PREFIX) && column.length > ATTRIBUTE_PREFIX.length) ||
      (column.startsWith(CONSENT_PREFIX) &&
        (CONSENT_PURPOSES as readonly string[]).includes(column.slice(CONSENT_PREFIX.length)));
    if (!known) throw new ImportFileError(`unknown column "${column.slice(0, 64)}" in the header`);
    if (seen.has(column)) throw new ImportFileError(`column "${column.slice(0, 64)}" appears twice in the header`);
    seen.add(column);
  }
}

/** A CSV record as an import row: empty cells leave the field as it is. */
export function csvRow(header: string[], record: string[], row: number): ImportRow {
  if (record.length !== header.length) {
    return {
      row,
      contact: {},
      consent: {},
      error: { field: 'row', message: `has ${record.length} cells where the header has ${header.length}` },
    };
  }
  const contact: Record<string, unknown> = {};
  const identities: Record<string, string> = {};
  const attributes: Record<string, string> = {};
  const consent: ImportRow['consent'] = {};
  header.forEach((column, i) => {
    const cell = record[i];
    if (cell === '' || EXPORT_ONLY_COLUMNS.has(column)) return;
    if (isAddressColumn(column)) identities[column] = cell;
    else if (column.startsWith(ATTRIBUTE_PREFIX)) attributes[column.slice(ATTRIBUTE_PREFIX.length)] = cell;
    else if (column.startsWith(CONSENT_PREFIX)) consent[column.slice(CONSENT_PREFIX.length) as ConsentPurpose] = cell;
    else if (column === 'lists') contact.lists = cell.split(LIST_SEPARATOR).map((l) => l.trim());
    else contact[column] = cell;
  });
  if (Object.keys(identities).length) contact.identities = identities;
  if (Object.keys(attributes).length) contact.attributes = attributes;
  return { row, contact, consent };
}

/** An NDJSON line as an import row: the API's contact object, with an optional `consent` object. */
export function ndjsonRow(line: string, row: number): ImportRow {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { row, contact: {}, consent: {}, error: { field: 'row', message: 'is not valid JSON' } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { row, contact: {}, consent: {}, error: { field: 'row', message: 'must be a JSON object' } };
  }
  const { consent, ...contact } = value as Record<string, unknown>;
  if (consent !== undefined && (typeof consent !== 'object' || consent === null || Array.isArray(consent))) {
    return { row, contact, consent: {}, error: { field: 'consent', message: 'must be an object' } };
  }
  return { row, contact, consent: (consent ?? {}) as ImportRow['consent'] };
}

/** The rows of an import file, read as a stream (never the whole file in memory). */
export function readImportRows(path: string, format: ImportFormat): AsyncGenerator<ImportRow> {
  return format === 'csv' ? readCsv(path) : readNdjson(path);
}

async function* readCsv(path: string): AsyncGenerator<ImportRow> {
  const parser = createReadStream(path).pipe(
    parse({ bom: true, skip_empty_lines: true, relax_column_count: true, max_record_size: MAX_ROW_CHARS }),
  );
  let header: string[] | null = null;
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = record.map((c) => c.trim());
        checkCsvHeader(header);
        continue;
      }
      yield { ...csvRow(header, record, ++row), chars: record.reduce((n, cell) => n + cell.length + 1, 0) };
    }
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(`the CSV cannot be read after row ${row}: ${(err as Error).message.slice(0, 200)}`);
  }
  if (!header) throw new ImportFileError('the file has no header row');
}

async function* readNdjson(path: string): AsyncGenerator<ImportRow> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  let buffered = '';
  let row = 0;
  /** The current line is longer than a row may be: its rest is skipped. */
  let overlong = false;
  const take = (line: string): ImportRow | null => {
    row += 1;
    if (overlong) {
      overlong = false;
      return {
        row,
        contact: {},
        consent: {},
        error: { field: 'row', message: `is longer than ${MAX_ROW_CHARS} characters` },
      };
    }
    return line.trim() ? { ...ndjsonRow(line, row), chars: line.length } : null;
  };
  for await (const chunk of stream as AsyncIterable<string>) {
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
      const line = overlong ? '' : buffered + chunk.slice(start, nl);
      buffered = '';
      start = nl + 1;
      const r = take(line);
      if (r) yield r;
    }
    if (!overlong) buffered += chunk.slice(start);
    if (buffered.length > MAX_ROW_CHARS) {
      overlong = true;
      buffered = '';
    }
  }
  if (buffered || overlong) {
    const r = take(buffered);
    if (r) yield r;
  }
}
