import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES } from '@app/contracts';
import { parseEnvelope, webhookBody } from './events.consumer';

const DOCS = join(__dirname, '..', '..', '..', '..', 'docs', 'events');

describe('event envelope and its documented schemas', () => {
  it.each(EVENT_TYPES)('%s has a JSON Schema whose envelope is exactly what subscribers receive', (type) => {
    const schema = JSON.parse(readFileSync(join(DOCS, `${type}.schema.json`), 'utf8')) as {
      properties: Record<string, { const?: string }>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.properties.type.const).toBe(type);
    expect(schema.additionalProperties).toBe(false);
    const body = JSON.parse(
      webhookBody({
        id: 'evt_0192f0c4a0f87cc3a1f0e4d2b3c4d5e6',
        type,
        created_at: 1763700000,
        channel: 'whatsapp',
        app_id: 12,
        user_id: '0192f0c4-a0f8-7cc3-a1f0-e4d2b3c4d5e6',
        data: {},
      }),
    ) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([...schema.required].sort());
    expect(Object.keys(schema.properties).sort()).toEqual([...schema.required].sort());
  });

  it('recognizes envelopes and rejects what is not one', () => {
    const ok = { id: 'evt_1', type: 'message.read', created_at: 1, channel: 'max', app_id: null, data: {} };
    expect(parseEnvelope(ok)).toEqual(ok);
    expect(parseEnvelope({ ...ok, type: 'message.exploded' })).toBeNull();
    expect(parseEnvelope({ ...ok, data: [] })).toBeNull();
    expect(parseEnvelope({ ...ok, created_at: '1' })).toBeNull();
    expect(parseEnvelope('evt_1')).toBeNull();
  });
});
