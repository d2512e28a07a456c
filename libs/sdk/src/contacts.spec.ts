import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createGatewayClient, MessagingError } from './index';

const accepted = () =>
  new Response(JSON.stringify({ id: 'imp-1', state: 'processing' }), {
    status: 202,
    headers: { 'content-type': 'application/json' },
  });
const busy = () =>
  new Response(JSON.stringify({ title: 'Service Unavailable', status: 503 }), {
    status: 503,
    headers: { 'content-type': 'application/problem+json', 'retry-after': '0' },
  });

/** A gateway client whose requests are recorded (method, URL, Content-Type, the body as text) and answered by `answers`. */
function recording(answers: (() => Response)[]) {
  const seen: { method: string; url: string; type: string | null; body: string; streamed: boolean }[] = [];
  const gateway = createGatewayClient({
    baseUrl: 'http://gw.test/',
    token: 'gk_test',
    fetch: async (request) => {
      seen.push({
        method: request.method,
        url: request.url,
        type: request.headers.get('content-type'),
        streamed: request.body !== null,
        body: await request.text(),
      });
      return (answers.shift() ?? accepted)();
    },
  });
  return { gateway, seen };
}

describe('contact imports', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-imports-'));
  const csv = join(dir, 'contacts.csv');
  const ndjson = join(dir, 'contacts.jsonl');
  writeFileSync(csv, 'external_id,name\nc-1,Ana\n');
  writeFileSync(ndjson, '{"external_id":"c-1"}\n');

  it('uploads a file with the Content-Type its name says, and retries a busy gateway reading the file again', async () => {
    const { gateway, seen } = recording([busy]);
    expect(await gateway.contacts.importFile(csv)).toEqual({ id: 'imp-1', state: 'processing' });
    expect(seen).toHaveLength(2);
    for (const request of seen) {
      expect(request).toEqual({
        method: 'POST',
        url: 'http://gw.test/v1/contacts/imports',
        type: 'text/csv',
        streamed: true,
        body: 'external_id,name\nc-1,Ana\n',
      });
    }
    await gateway.contacts.importFile(new URL(`file://${ndjson}`));
    expect(seen[2].type).toBe('application/x-ndjson');
  });

  it('refuses a file whose format neither its name nor the options say', async () => {
    const { gateway, seen } = recording([]);
    const unnamed = join(dir, 'contacts.txt');
    writeFileSync(unnamed, 'external_id\nc-1\n');
    await expect(gateway.contacts.importFile(unnamed)).rejects.toThrow(/format/);
    expect(seen).toHaveLength(0);
    await gateway.contacts.importFile(unnamed, { format: 'csv' });
    expect(seen[0].type).toBe('text/csv');
  });

  it('uploads a stream as it is read, once: a refusal is a MessagingError', async () => {
    const { gateway, seen } = recording([busy]);
    const rows = Readable.from(['{"external_id":"c-1"}\n', '{"external_id":"c-2"}\n']);
    const refused = await gateway.contacts.importStream(rows, { format: 'ndjson' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MessagingError);
    expect(refused).toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      type: 'application/x-ndjson',
      body: '{"external_id":"c-1"}\n{"external_id":"c-2"}\n',
    });
  });
});
