import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as contracts from './index';
import { CHANNELS, EVENT_CONSUMERS, KV_BUCKETS, OBJECT_BUCKETS, Priority, StreamKey, STREAMS, Topology } from './index';

/**
 * docs/architecture.md is the page a newcomer reads first: every request/reply subject and every
 * stream, consumer and bucket of the topology must be on it. The names come from the contracts
 * themselves, so a subject or stream added without its row fails here, named.
 */
const doc = readFileSync(join(__dirname, '../../../docs/architecture.md'), 'utf8');
/** The page's table rows: a name counts only where a table lists it, not where prose mentions it. */
const rows = doc.split('\n').filter((line) => line.startsWith('|'));
const t = new Topology();

/** Every request/reply subject: the values of each `*_RPC` table the contracts export. */
function rpcSubjects(): string[] {
  return Object.entries(contracts)
    .filter(([name, value]) => name.endsWith('_RPC') && typeof value === 'object' && value !== null)
    .flatMap(([, table]) => Object.values(table as Record<string, unknown>))
    .filter((subject): subject is string => typeof subject === 'string');
}

/** A durable outbound consumer as the page names it: one per channel, `<priority>_<channel>`. */
const outboundConsumerPattern = (priority: Priority): string =>
  t.outboundConsumer(priority, CHANNELS[0]).replace(CHANNELS[0], '<channel>');

/** The names no table row of the page shows in backticks. */
const missing = (names: readonly string[]): string[] =>
  names.filter((name) => !rows.some((row) => row.includes(`\`${name}\``)));

describe('docs/architecture.md', () => {
  it('names every request/reply subject', () => {
    const subjects = rpcSubjects();
    expect(subjects.length).toBeGreaterThan(0);
    expect(subjects).toContain(contracts.CAMPAIGNS_RPC.launch);
    expect(missing(subjects)).toEqual([]);
  });

  it('names every stream', () => {
    const streams = (Object.keys(STREAMS) as StreamKey[]).map((key) => t.stream(key));
    expect(missing(streams)).toEqual([]);
  });

  it('names every durable consumer, Key-Value bucket and object store bucket', () => {
    const consumers = [
      ...(['service', 'marketing'] as Priority[]).map(outboundConsumerPattern),
      ...EVENT_CONSUMERS.map((service) => t.eventConsumer(service)),
      t.inboundConsumer(),
      t.mediaConsumer(),
    ];
    expect(missing([...consumers, ...Object.values(KV_BUCKETS), ...Object.values(OBJECT_BUCKETS)])).toEqual([]);
  });
});
