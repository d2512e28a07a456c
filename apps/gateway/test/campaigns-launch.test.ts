import { v7 as uuidv7 } from 'uuid';
import { campaignsGateway, Json } from './support/campaigns-gateway';

/**
 * The gateway's campaign launch against a stand-in for the api's campaign subjects: a one-page
 * audience launched in one call, a launch whose answer was lost answered by its key, a large
 * audience loaded in pages bounded by count and size that starts over when interrupted, and the
 * recipients report as JSON and CSV.
 */
describe('gateway campaign launch', () => {
  const g = campaignsGateway('gw-campaigns-launch');
  const { call, fields, create, contact, loaded } = g;

  it('launches a one-page audience in one call, and a launch whose answer was lost answers the campaign it launched, never "still a draft"', async () => {
    await contact({ name: 'Kira', whatsapp: '79990000301', lists: ['list-lost'] });
    await contact({ name: 'Lev', whatsapp: '79990000302', lists: ['list-lost'] });
    const launch = (id: string, key?: string) =>
      call(`/v1/campaigns/${id}/launch`, { method: 'POST', headers: key ? { 'Idempotency-Key': key } : {} });

    // The api committed the launch but its answer was lost: the same launch asked again answers it.
    const lost = await create({ audience: { list: 'list-lost' } });
    g.api.state.loseLaunchAnswers = 1;
    const launched = await launch(lost.id, 'launch-lost-1');
    expect(launched.status).toBe(200);
    expect(launched.body).toMatchObject({ id: lost.id, state: 'running', recipients: 2 });
    // Its recipients went in one page that launched it, loaded once.
    expect(g.api.state.pages.filter((p) => p.id === lost.id).map((p) => p.count)).toEqual([2]);
    // The client's retry with the same key answers the campaign; another key or none is 409.
    expect(await launch(lost.id, 'launch-lost-1')).toMatchObject({
      status: 200,
      body: { id: lost.id, state: 'running', recipients: 2 },
    });
    const other = await launch(lost.id, 'another-key');
    expect([other.status, other.body.type]).toEqual([409, '/problems/campaign-state']);
    expect((await launch(lost.id)).status).toBe(409);

    // Both answers lost: a 503 that says the campaign may have launched, and the key's retry answers it.
    const unconfirmed = await create({ audience: { list: 'list-lost' } });
    g.api.state.loseLaunchAnswers = 2;
    const unknown = await launch(unconfirmed.id, 'launch-lost-2');
    expect(unknown.status).toBe(503);
    expect(unknown.body.detail).toContain('may have launched');
    expect(unknown.body.detail).not.toContain('still a draft');
    expect((await call(`/v1/campaigns/${unconfirmed.id}`)).body.state).toBe('running');
    expect(await launch(unconfirmed.id, 'launch-lost-2')).toMatchObject({
      status: 200,
      body: { id: unconfirmed.id, state: 'running', recipients: 2 },
    });
    expect(fields(await launch(unconfirmed.id, 'k'.repeat(256)))).toEqual(['Idempotency-Key']);
  });

  it('loads a large audience in pages bounded by count and size, starts over after an interrupted launch, and reports it as JSON and CSV', async () => {
    const tag = 'big';
    await g.db.query(
      `WITH c AS (
         INSERT INTO contacts (id, account_id, external_id, name, lists, attributes)
         SELECT gen_random_uuid(), $1, CASE WHEN i = 7 THEN '=HYPERLINK("x")' ELSE 'big-' || i END,
                repeat('n', 200), ARRAY[$2], jsonb_build_object('i', i)
           FROM generate_series(1, 2500) AS i
         RETURNING id, attributes)
       INSERT INTO contact_addresses (account_id, contact_id, channel, kind, value)
       SELECT $1, id, 'whatsapp', 'phone', (79100000000 + (attributes ->> 'i')::int)::text FROM c`,
      [g.accountId, tag],
    );
    await g.db.query(`UPDATE contacts SET attributes = '{}' WHERE account_id = $1 AND $2 = ANY(lists)`, [
      g.accountId,
      tag,
    ]);
    // About 700 bytes a recipient: pages are cut by size (512 KiB) before they reach 1,000 recipients.
    const c = await create({
      audience: { list: tag },
      params: ['{{contact.name}}', '{{contact.name}}', '{{contact.name}}', '{{contact.external_id}}'],
    });
    const first = await call(`/v1/campaigns/${c.id}/launch`, { method: 'POST' });
    expect(first.status).toBe(200);
    const pages = g.api.state.pages.filter((p) => p.id === c.id);
    expect(pages[0].reset).toBe(true);
    expect(pages.slice(1).every((p) => !p.reset)).toBe(true);
    expect(pages.every((p) => p.count <= 1000 && p.bytes <= 520 * 1024)).toBe(true);
    expect(pages.length).toBeGreaterThanOrEqual(4);
    expect(pages.reduce((n, p) => n + p.count, 0)).toBe(2500);
    expect(loaded(c.id).map((r) => r.seq)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));

    // A draft holding what an interrupted launch loaded starts over.
    const again = await create({ audience: { list: tag }, params: ['{{contact.name}}'] });
    g.api.state.loaded.set(again.id, [loaded(c.id)[0]]);
    expect((await call(`/v1/campaigns/${again.id}/launch`, { method: 'POST' })).body.recipients).toBe(2500);

    const json = await call(`/v1/campaigns/${c.id}/recipients?limit=2`);
    expect(json.body.data.map((r: Json) => r.seq)).toEqual([1, 2]);
    expect(json.body.next_after).toBe(2);
    expect((await call(`/v1/campaigns/${c.id}/recipients?after=2499`)).body).toMatchObject({
      data: [{ seq: 2500 }],
      next_after: null,
    });
    expect(fields(await call(`/v1/campaigns/${c.id}/recipients?limit=1001&status=lost`))).toEqual(['limit', 'status']);
    const csv = await call(`/v1/campaigns/${c.id}/recipients`, { headers: { Accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe(
      'seq,contact_id,external_id,status,skip_reason,channel,message_id,failure_code,queued_at,updated_at,next_attempt_at,' +
        'variant,replied_at,reply_kind,reply_id,reply_title,reply_text',
    );
    expect(lines).toHaveLength(2501);
    expect(lines[1]).toMatch(/^1,[0-9a-f-]{36},big-\d+,pending,,,,,,,,,,,,,$/);
    // Text a spreadsheet would run as a formula is quoted.
    expect(csv.text).toMatch(/^\d+,[0-9a-f-]{36},"'=HYPERLINK\(""x""\)",pending,/m);
    expect((await call(`/v1/campaigns/${uuidv7()}/recipients`, { headers: { Accept: 'text/csv' } })).status).toBe(404);
  });
});
