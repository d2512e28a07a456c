import { waitFor } from '@app/testing';
import { TemplateSyncService } from '../src/templates/template-sync.service';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, errorFields, expectProblem, Json } from './support/http';
import { minimalTemplate, textTemplate } from './support/templates';

/**
 * The whole template lifecycle against the running api, gateway, queue and sandbox: moderation by
 * the sandbox's emulator reaches the api as `template.status_changed` through the gateway.
 */
describe('template lifecycle', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let other: TestUser;
  let realUser: TestUser;
  let call: ReturnType<typeof client>;
  let appId: number;
  let base: string;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'api-tpl-life',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      // Over a second: the gateway identifies a moderation callback by template, outcome and the
      // callback's whole-second time, so a re-approval within the same second as the previous
      // approval would be taken for a duplicate (real moderation takes minutes).
      env: { SANDBOX_MODERATION_DELAY_MS: '1100', TEMPLATE_SYNC_INTERVAL_MS: '0' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    other = await factory.user('system');
    realUser = await factory.user('user');
    appId = (await factory.activeApp(sys.userId)).id;
    base = `/v1/wa/apps/${appId}/templates`;
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  const list = async (): Promise<Json[]> => {
    const res = await call('GET', base, { auth: sys.auth });
    expect(res.status).toBe(200);
    return res.body;
  };
  const get = async (id: number): Promise<Json> => (await list()).find((t) => t.id === id);
  const create = async (body: Record<string, unknown>): Promise<Json> => {
    const res = await call('POST', base, { auth: sys.auth, body });
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
    return res.body;
  };
  const waitForStatus = async (id: number, status: string): Promise<Json> => {
    let last: Json;
    try {
      return await waitFor(async () => {
        last = await get(id);
        return last?.status === status ? last : undefined;
      }, 10_000);
    } catch {
      throw new Error(`template ${id} did not become ${status}; last seen: ${JSON.stringify(last)}`);
    }
  };

  it('create -> PENDING -> APPROVED by the sandbox -> PATCH 204 -> PENDING -> APPROVED again', async () => {
    const created = await create(textTemplate({ name: 'lifecycle' }));
    expect(created).toMatchObject({ status: 'PENDING', quality: 'UNKNOWN', failure_details: null });

    const approved = await waitForStatus(created.id, 'APPROVED');
    expect(approved.failure_details).toBeNull();
    expect(approved.wa_id).toBe(created.wa_id);

    const patched = await call('PATCH', `${base}/${created.id}`, {
      auth: sys.auth,
      body: { body: 'Hello {{1}}, order {{2}} is on its way.', body_example: 'Hello Bob, order B77 is on its way.' },
    });
    expect(patched.status).toBe(204);
    expect(patched.text).toBe('');
    const pending = await get(created.id);
    expect(pending.status).toBe('PENDING');
    expect(pending.components.body).toEqual({
      text: 'Hello {{1}}, order {{2}} is on its way.',
      sample_text: 'Hello Bob, order B77 is on its way.',
      placeholders: ['Bob', 'B77'],
    });
    // Omitted header, footer, buttons and category keep their values.
    expect(pending.category).toBe('UTILITY');
    expect(pending.components.header).toEqual(created.components.header);
    expect(pending.components.footer).toEqual(created.components.footer);
    expect(pending.components.buttons).toEqual(created.components.buttons);

    await waitForStatus(created.id, 'APPROVED');
  });

  it('PATCH while PENDING (and while FAILED) is a 422 and changes nothing', async () => {
    const created = await create(minimalTemplate());
    const edit = { body: 'Changed text', body_example: 'Changed text' };
    const res = await call('PATCH', `${base}/${created.id}`, { auth: sys.auth, body: edit });
    const problem = expectProblem(res, 422, '/problems/template-not-editable');
    expect(problem.template_status).toBe('PENDING');
    await waitForStatus(created.id, 'APPROVED');
    expect((await get(created.id)).components.body.text).toBe('Our summer sale starts today.');

    await factory.dataSource.query(`UPDATE templates SET status = 'FAILED' WHERE id = $1`, [created.id]);
    expectProblem(await call('PATCH', `${base}/${created.id}`, { auth: sys.auth, body: edit }), 422);
  });

  it('a rejected template carries failure_details; an edit sends it back to moderation and clears them', async () => {
    const created = await create(
      minimalTemplate({ body: 'Win a prize REJECTME now', body_example: 'Win a prize REJECTME now' }),
    );
    const rejected = await waitForStatus(created.id, 'REJECTED');
    expect(rejected.failure_details).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(rejected.failure_details.message.length).toBeGreaterThan(0);
    expect(rejected).not.toHaveProperty('failureDetails');

    const byName = await create(minimalTemplate({ name: 'please_reject_me' }));
    expect((await waitForStatus(byName.id, 'REJECTED')).failure_details).not.toBeNull();

    const res = await call('PATCH', `${base}/${created.id}`, {
      auth: sys.auth,
      body: { body: 'Our sale starts now', body_example: 'Our sale starts now' },
    });
    expect(res.status).toBe(204);
    const pending = await get(created.id);
    expect(pending).toMatchObject({ status: 'PENDING', failure_details: null });
    expect((await waitForStatus(created.id, 'APPROVED')).failure_details).toBeNull();
  });

  it('PATCH: empty string removes header and footer, [] or null removes buttons, category changes', async () => {
    const created = await create(textTemplate());
    await waitForStatus(created.id, 'APPROVED');
    const edit = { body: 'Plain body', body_example: 'Plain body' };
    expect(
      (
        await call('PATCH', `${base}/${created.id}`, {
          auth: sys.auth,
          body: { ...edit, header: '', footer: '', buttons: [] },
        })
      ).status,
    ).toBe(204);
    const stripped = await get(created.id);
    expect(stripped.components).toEqual({
      body: { text: 'Plain body', sample_text: 'Plain body', placeholders: [] },
      footer: null,
      buttons: [],
    });

    await waitForStatus(created.id, 'APPROVED');
    const withButtons = {
      ...edit,
      category: 'MARKETING',
      header: 'New {{1}}',
      header_example: 'New arrivals',
      footer: 'Bye',
      buttons: [{ type: 'QUICK_REPLY', text: 'Stop' }],
    };
    expect((await call('PATCH', `${base}/${created.id}`, { auth: sys.auth, body: withButtons })).status).toBe(204);
    const full = await get(created.id);
    expect(full.category).toBe('MARKETING');
    expect(full.components.header).toEqual({
      text: 'New {{1}}',
      sample_text: 'New arrivals',
      placeholders: ['arrivals'],
    });
    expect(full.components.buttons).toEqual([{ type: 'QUICK_REPLY', text: 'Stop' }]);

    await waitForStatus(created.id, 'APPROVED');
    expect(
      (await call('PATCH', `${base}/${created.id}`, { auth: sys.auth, body: { ...edit, buttons: null } })).status,
    ).toBe(204);
    const noButtons = await get(created.id);
    expect(noButtons.components.buttons).toEqual([]);
    expect(noButtons.components.footer).toEqual({ text: 'Bye', sample_text: 'Bye', placeholders: [] });
  });

  it('PATCH: 400 for its rules (body required, limits, 11 buttons, header without example)', async () => {
    const created = await create(minimalTemplate());
    await waitForStatus(created.id, 'APPROVED');
    const path = `${base}/${created.id}`;
    const cases: [Record<string, unknown>, string][] = [
      [{ body_example: 'x' }, 'body'],
      [{ body: 'x' }, 'body_example'],
      [{ body: 'b'.repeat(551), body_example: 'b'.repeat(551) }, 'body'],
      [{ body: 'x', body_example: 'x', header: 'h'.repeat(61), header_example: 'h' }, 'header'],
      [{ body: 'x', body_example: 'x', footer: 'f'.repeat(61) }, 'footer'],
      [{ body: 'x', body_example: 'x', header: 'Hi {{1}}' }, 'header_example'],
      [{ body: 'x', body_example: 'x', category: 'MARKETING_LITE' }, 'category'],
      [{ body: 'x', body_example: 'x', name: 'renamed' }, 'name'],
      [
        {
          body: 'x',
          body_example: 'x',
          buttons: Array.from({ length: 11 }, (_, i) => ({ type: 'QUICK_REPLY', text: `B${i}` })),
        },
        'buttons',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await call('PATCH', path, { auth: sys.auth, body });
      expectProblem(res, 400, '/problems/validation-error');
      expect(errorFields(res)).toContain(field);
    }
    const ten = Array.from({ length: 10 }, (_, i) => ({ type: 'QUICK_REPLY', text: `B${i}` }));
    expect(
      (
        await call('PATCH', path, {
          auth: sys.auth,
          body: { body: 'b'.repeat(550), body_example: 'b'.repeat(550), buttons: ten },
        })
      ).status,
    ).toBe(204);
  });

  it('DELETE: 204, then the template is gone (404) on the api and on the channel', async () => {
    const created = await create(minimalTemplate());
    const res = await call('DELETE', `${base}/${created.id}`, { auth: sys.auth });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await get(created.id)).toBeUndefined();
    expectProblem(await call('DELETE', `${base}/${created.id}`, { auth: sys.auth }), 404, '/problems/not-found');
    expectProblem(
      await call('PATCH', `${base}/${created.id}`, { auth: sys.auth, body: { body: 'x', body_example: 'x' } }),
      404,
    );
    const sandbox = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/templates`);
    expect(JSON.stringify(await sandbox.json())).not.toContain(`"${created.wa_id}"`);
  });

  it('tenant isolation: another tenant gets 403 on every endpoint and never data; 404 for unknown ids; 401 without a token', async () => {
    const created = await create(minimalTemplate());
    await waitForStatus(created.id, 'APPROVED');
    const edit = { body: 'Taken over', body_example: 'Taken over' };
    const endpoints: [string, string, unknown][] = [
      ['POST', base, minimalTemplate()],
      ['GET', base, undefined],
      ['PATCH', `${base}/${created.id}`, edit],
      ['DELETE', `${base}/${created.id}`, undefined],
      ['GET', `/v1/wa/apps/${appId}`, undefined],
      ['GET', `/v1/wa/apps/${appId}/profile`, undefined],
      ['PATCH', `/v1/wa/apps/${appId}/profile`, { about: 'x' }],
      ['GET', `/v1/wa/apps/${appId}/profile/photo`, undefined],
    ];
    for (const [method, path, body] of endpoints) {
      for (const who of [other, realUser]) {
        const res = await call(method, path, { auth: who.auth, body });
        const problem = expectProblem(res, 403);
        expect(JSON.stringify(problem)).not.toContain(created.wa_id);
      }
      const anon = await call(method, path, { body });
      expectProblem(anon, 401);
      expect(anon.headers.get('www-authenticate')).toBe('Bearer');
    }
    // Nothing changed for the owner.
    expect(await get(created.id)).toMatchObject({
      status: 'APPROVED',
      components: { body: { text: created.components.body.text } },
    });

    // Another tenant's own app does not reach this tenant's template either.
    const theirApp = await factory.activeApp(other.userId);
    expectProblem(
      await call('DELETE', `/v1/wa/apps/${theirApp.id}/templates/${created.id}`, { auth: other.auth }),
      404,
    );
    for (const [method, path, body] of [
      ['GET', '/v1/wa/apps/999999/templates', undefined],
      ['POST', '/v1/wa/apps/999999/templates', minimalTemplate()],
      ['PATCH', `${base}/999999`, edit],
      ['DELETE', `${base}/999999`, undefined],
      ['DELETE', `${base}/abc`, undefined],
    ] as [string, string, unknown][]) {
      expectProblem(await call(method, path, { auth: sys.auth, body }), 404, '/problems/not-found');
    }
    expect(await get(created.id)).toBeDefined();
  });

  it('the periodic sync repairs a missed callback, through the same path as the event', async () => {
    const created = await create(
      minimalTemplate({ body: 'Synced REJECTME body', body_example: 'Synced REJECTME body' }),
    );
    await waitForStatus(created.id, 'REJECTED');
    // The api's copy diverges from the channel, as if the callback had been lost.
    await factory.dataSource.query(`UPDATE templates SET status = 'PENDING', failure_details = NULL WHERE id = $1`, [
      created.id,
    ]);
    expect((await get(created.id)).status).toBe('PENDING');
    const sync = platform.apps.api!.get(TemplateSyncService);
    expect(await sync.syncAll()).toBeGreaterThanOrEqual(1);
    const repaired = await get(created.id);
    expect(repaired.status).toBe('REJECTED');
    expect(repaired.failure_details).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(await sync.syncAll()).toBe(0);
  });

  it('503 and nothing stored or changed while the channel cannot be reached', async () => {
    const kept = await create(minimalTemplate());
    await waitForStatus(kept.id, 'APPROVED');
    const before = await list();
    await platform.stopService('gateway');
    try {
      const created = await call('POST', base, { auth: sys.auth, body: minimalTemplate({ name: 'during_outage' }) });
      expectProblem(created, 503, '/problems/service-unavailable');
      expect(created.headers.get('retry-after')).toMatch(/^\d+$/);
      expectProblem(
        await call('PATCH', `${base}/${kept.id}`, { auth: sys.auth, body: { body: 'New', body_example: 'New' } }),
        503,
      );
      expectProblem(await call('DELETE', `${base}/${kept.id}`, { auth: sys.auth }), 503);
      expect(await list()).toEqual(before);
    } finally {
      await platform.startService('gateway');
    }
    const after = await call('POST', base, { auth: sys.auth, body: minimalTemplate({ name: 'during_outage' }) });
    expect(after.status).toBe(201);
  });

  it('the list of an app with many templates is every one, in id order, written batch after batch', async () => {
    const app = await factory.activeApp(sys.userId);
    const made = [];
    for (let i = 0; i < 230; i++) made.push((await factory.sendableTemplate(app.id, { name: `many_${i}` })).id);
    const res = await call('GET', `/v1/wa/apps/${app.id}/templates`, { auth: sys.auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((res.body as Json[]).map((t) => t.id)).toEqual(made);
  });
});
