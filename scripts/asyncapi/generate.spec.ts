import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck } from '../run-check';
import { subjectMatches } from './generate';

const ROOT = join(__dirname, '..', '..');
const DOCUMENT = join(ROOT, 'docs', 'asyncapi.json');

const check = () => runCheck('asyncapi.ts');

/**
 * The committed AsyncAPI document is what the topology, the NATS permissions and the contracts
 * generate now, and @asyncapi/parser finds no error in it: a new subject, consumer or contract field
 * not followed by `pnpm asyncapi` fails here (and in `pnpm openapi:lint`).
 */
describe('the AsyncAPI document of the NATS surface', () => {
  it('is committed as generated and valid, and a stale document is named', async () => {
    expect(await check()).toEqual({ code: 0, output: 'docs/asyncapi.json is up to date and valid AsyncAPI 3.0\n' });

    const saved = join(mkdtempSync(join(tmpdir(), 'asyncapi-')), 'asyncapi.json');
    copyFileSync(DOCUMENT, saved);
    try {
      writeFileSync(DOCUMENT, readFileSync(saved, 'utf8').replace('"max_deliver": 10,', '"max_deliver": 5,'));
      const stale = await check();
      expect(stale.code).toBe(1);
      expect(stale.output).toContain('docs/asyncapi.json: not what the sources generate; run `pnpm asyncapi`');
    } finally {
      copyFileSync(saved, DOCUMENT);
      rmSync(saved);
    }
  }, 120_000);

  it('describes every outbound lane with its consumer, dead letter and reports', () => {
    const doc = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as {
      channels: Record<string, { address: string | null }>;
      operations: Record<string, { action: string; 'x-consumer'?: Record<string, unknown> }>;
    };
    const addresses = Object.values(doc.channels).map((c) => c.address);
    expect(addresses).toEqual(expect.arrayContaining(['outbound.marketing.telegram', 'events.message.sent']));
    const consumer = Object.values(doc.operations).find(
      (o) => o.action === 'receive' && o['x-consumer']?.durable_name === 'marketing_telegram',
    )?.['x-consumer'];
    expect(consumer).toMatchObject({
      stream: 'OUTBOUND_MARKETING',
      ack_policy: 'explicit',
      max_deliver: 10,
      dead_letter: 'dlq.OUTBOUND_MARKETING.marketing_telegram',
      pulled_by: ['queue', 'queue_telegram'],
    });
  });

  it('matches NATS subject patterns token by token', () => {
    expect(subjectMatches('outbound.*.max', 'outbound.service.max')).toBe(true);
    expect(subjectMatches('outbound.*.max', 'outbound.service.max.x')).toBe(false);
    expect(subjectMatches('events.>', 'events.message.sent')).toBe(true);
    expect(subjectMatches('events.>', 'events')).toBe(false);
    expect(subjectMatches('a.b', 'a.c')).toBe(false);
  });
});
