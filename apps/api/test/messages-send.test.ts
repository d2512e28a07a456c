import { EventEnvelope, newEventId, Topology, unixSeconds } from '@app/contracts';
import { NatsClients, publishDurable } from '@app/messaging';
import { waitFor } from '@app/testing';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { errorFields, expectProblem } from './support/http';
import { SendSuite, startSendSuite } from './support/send-suite';

/** Sending: every validation rule at its edge and every status code of POST /v1/wa/apps/{appId}/messages. */
describe('POST /v1/wa/apps/{appId}/messages', () => {
  const recipient = '79990001122';
  let suite: SendSuite;
  let factory: ApiFactory, nats: NatsClients, topology: Topology, sys: TestUser, app: AppEntity;
  let call: SendSuite['call'], send: SendSuite['send'], drain: SendSuite['drain'];
  const text = (body: string, phone = recipient) => ({ phone, type: 'TEXT', text: { body } });
  const template = (t: Record<string, unknown>, phone = recipient) => ({ phone, type: 'TEMPLATE', template: t });

  beforeAll(async () => {
    suite = await startSendSuite('messages-send', recipient);
    ({ factory, nats, topology, sys, app, call, send, drain } = suite);
  });

  afterAll(() => suite?.stop());

  describe('free-form kinds', () => {
    it('TEXT: 201 with the message id, queued on the service stream with its content and sender', async () => {
      await drain('service');
      const res = await send(text('Your parcel is on its way'));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ message: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
      const queued = await drain('service');
      expect(queued).toHaveLength(1);
      expect(queued[0].msgId).toBe(res.body.message.id);
      expect(queued[0].body).toMatchObject({
        id: res.body.message.id,
        channel: 'whatsapp',
        priority: 'service',
        category: 'SERVICE',
        user_id: sys.userId,
        app_id: app.id,
        sender: { connection_id: app.phoneNumberId, waba_id: app.wabaId },
        recipient,
        kind: 'TEXT',
        content: { text: { body: 'Your parcel is on its way' } },
      });
    });

    it('TEXT body: 4096 characters pass, 4097 and empty are refused', async () => {
      expect((await send(text('x'.repeat(4096)))).status).toBe(201);
      const long = await send(text('x'.repeat(4097)));
      expectProblem(long, 400, '/problems/validation-error');
      expect(errorFields(long)).toEqual(['text.body']);
      expect(errorFields(await send(text('')))).toEqual(['text.body']);
    });

    it.each([
      ['12345678', 201],
      ['123456789012345', 201],
      ['1234567', 400],
      ['1234567890123456', 400],
      ['+79990001122', 400],
      ['09990001122', 400],
      ['7999 0001122', 400],
    ])('phone %s: %i', async (phone, status) => {
      await factory.openConversation(app.id, phone);
      const res = await send(text('hi', phone));
      expect(res.status).toBe(status);
      if (status === 400) expect(errorFields(res)).toEqual(['phone']);
    });

    it('a numeric phone is refused', async () => {
      expect(new Set(errorFields(await send({ phone: 79990001122, type: 'TEXT', text: { body: 'hi' } })))).toEqual(
        new Set(['phone']),
      );
    });

    it('IMAGE, VIDEO, DOCUMENT and AUDIO with HTTPS URLs are queued with their data', async () => {
      await drain('service');
      const url = 'https://cdn.example.com/files/a.bin';
      const bodies = [
        { phone: recipient, type: 'IMAGE', image: { url, caption: 'A picture' } },
        { phone: recipient, type: 'VIDEO', video: { url } },
        { phone: recipient, type: 'DOCUMENT', document: { url, caption: 'Invoice' } },
        { phone: recipient, type: 'AUDIO', audio: { url, is_voice: true } },
      ];
      for (const body of bodies) expect((await send(body)).status).toBe(201);
      const queued = await drain('service');
      expect(queued.map((q) => q.body.content)).toEqual([
        { image: { url, caption: 'A picture' } },
        { video: { url } },
        { document: { url, caption: 'Invoice' } },
        { audio: { url, is_voice: true } },
      ]);
    });

    it.each([
      [{ type: 'IMAGE', image: { url: 'http://example.com/a.jpg' } }, ['image.url']],
      [{ type: 'VIDEO', video: { url: 'not a url' } }, ['video.url']],
      [{ type: 'DOCUMENT', document: {} }, ['document.url', 'document.url', 'document.url']],
      [{ type: 'AUDIO', audio: { url: 'https://example.com/a.ogg', is_voice: 'yes' } }, ['audio.is_voice']],
      [{ type: 'IMAGE', image: { url: 'https://example.com/a.jpg', caption: 'x'.repeat(1025) } }, ['image.caption']],
    ])('media rule %#: 400 on %j', async (data, fields) => {
      const res = await send({ phone: recipient, ...data });
      expectProblem(res, 400, '/problems/validation-error');
      expect(errorFields(res)).toEqual(fields);
    });

    it('REACTION: one emoji grapheme (ZWJ sequences included) passes; two emoji or a letter do not', async () => {
      const reaction = (emoji: string) => ({
        phone: recipient,
        type: 'REACTION',
        reaction: { emoji, message_id: 'wamid.X1' },
      });
      expect((await send(reaction('👍'))).status).toBe(201);
      expect((await send(reaction('👨‍👩‍👧'))).status).toBe(201);
      expect((await send(reaction('🇧🇷'))).status).toBe(201);
      expect(errorFields(await send(reaction('👍👍')))).toEqual(['reaction.emoji']);
      expect(errorFields(await send(reaction('a')))).toEqual(['reaction.emoji']);
      expect(errorFields(await send({ phone: recipient, type: 'REACTION', reaction: { emoji: '👍' } }))).toEqual([
        'reaction.message_id',
        'reaction.message_id',
      ]);
    });

    it('a reaction to one of our messages carries its channel id once known', async () => {
      const first = await send(text('react to me'));
      await factory.dataSource.query(`UPDATE messages SET provider_message_id = 'wamid.OURS' WHERE id = $1`, [
        first.body.message.id,
      ]);
      await drain('service');
      const res = await send({
        phone: recipient,
        type: 'REACTION',
        reaction: { emoji: '🔥', message_id: first.body.message.id },
      });
      expect(res.status).toBe(201);
      const [queued] = await drain('service');
      expect(queued.body.content).toEqual({
        reaction: { emoji: '🔥', message_id: first.body.message.id, provider_message_id: 'wamid.OURS' },
      });
    });
  });

  describe('the body shape', () => {
    it('the data object must match the type', async () => {
      const res = await send({ phone: recipient, type: 'TEXT', image: { url: 'https://example.com/a.jpg' } });
      expectProblem(res, 400);
      expect(errorFields(res).sort()).toEqual(['image', 'text']);
    });

    it('two data objects are refused', async () => {
      const res = await send({
        phone: recipient,
        type: 'TEXT',
        text: { body: 'a' },
        audio: { url: 'https://e.com/a' },
      });
      expect(errorFields(res)).toEqual(['audio']);
    });

    it('an unknown type, an unknown field, a missing phone: 400 naming each', async () => {
      expect(errorFields(await send({ phone: recipient, type: 'STICKER', sticker: {} }))).toEqual(
        expect.arrayContaining(['type', 'sticker']),
      );
      expect(errorFields(await send({ ...text('a'), priority: 'high' }))).toEqual(['priority']);
      expect(errorFields(await send({ phone: recipient, type: 'TEXT', text: { body: 'a', bold: true } }))).toEqual([
        'text.bold',
      ]);
      expect(errorFields(await send({ type: 'TEXT', text: { body: 'a' } }))).toEqual(['phone', 'phone']);
    });

    it('is_mm_lite belongs to TEMPLATE sends only', async () => {
      expect(errorFields(await send({ ...text('a'), is_mm_lite: true }))).toEqual(['is_mm_lite']);
    });
  });

  describe('templates', () => {
    it('a template send is validated against the stored template and queued with its values', async () => {
      const tpl = await factory.sendableTemplate(app.id, {
        name: 'order_ready',
        category: 'UTILITY',
        header: 'Order {{1}}',
        body: 'Hello {{1}}, order {{2}} is ready.',
        footer: 'Thanks',
        buttons: [
          { type: 'QUICK_REPLY', text: 'OK' },
          { type: 'URL', text: 'Track', url: 'https://shop.example.com/track/{{1}}' },
        ],
      });
      await drain('service');
      const components = {
        header: { values: ['A-1'] },
        body: { values: ['Ann', 42] },
        buttons: [{ type: 'URL', values: ['A-1'] }],
      };
      const res = await send(template({ name: 'order_ready', components }, '4915112345678'));
      expect(res.status).toBe(201);
      const [queued] = await drain('service');
      expect(queued.body).toMatchObject({ kind: 'TEMPLATE', category: 'UTILITY', priority: 'service' });
      expect(queued.body.content).toEqual({
        template: {
          name: 'order_ready',
          language: tpl.language,
          media: null,
          header_values: ['A-1'],
          body_values: ['Ann', '42'],
          buttons: [{ index: 1, type: 'URL', values: ['A-1'] }],
          rendered_text: 'Order A-1\n\nHello Ann, order 42 is ready.\n\nThanks',
          is_mm_lite: false,
        },
      });
    });

    it('values: 30 characters pass, 31 do not; objects are not values', async () => {
      await factory.sendableTemplate(app.id, { name: 'one_var', body: 'Code {{1}}' });
      const tpl = (values: unknown[]) => template({ name: 'one_var', components: { body: { values } } });
      expect((await send(tpl(['y'.repeat(30)]))).status).toBe(201);
      expect(errorFields(await send(tpl(['y'.repeat(31)])))).toEqual(['template.components.body.values']);
      expect(errorFields(await send(tpl([{ a: 1 }])))).toEqual(['template.components.body.values']);
      expect(errorFields(await send(tpl([''])))).toEqual(['template.components.body.values']);
    });

    it('at most 10 values per component', async () => {
      const body = Array.from({ length: 10 }, (_, i) => `{{${i + 1}}}`).join(' ');
      await factory.sendableTemplate(app.id, { name: 'ten_vars', body });
      const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
      const tpl = (n: number) => template({ name: 'ten_vars', components: { body: { values: values(n) } } });
      expect((await send(tpl(10))).status).toBe(201);
      expect(errorFields(await send(tpl(11)))).toEqual(['template.components.body.values']);
    });

    it('the number of values must equal the variables of each component', async () => {
      await factory.sendableTemplate(app.id, { name: 'two_vars', header: 'Hi {{1}}', body: 'A {{1}} B {{2}}' });
      const res = await send(
        template({ name: 'two_vars', components: { header: { values: [] }, body: { values: ['only one'] } } }),
      );
      expectProblem(res, 400, '/problems/validation-error');
      expect(errorFields(res)).toEqual(['template.components.header.values', 'template.components.body.values']);
    });

    it('an unknown, a pending and a rejected template are refused', async () => {
      await factory.sendableTemplate(app.id, { name: 'pending_tpl', status: 'PENDING', body: 'Hi' });
      await factory.sendableTemplate(app.id, { name: 'rejected_tpl', status: 'REJECTED', body: 'Hi' });
      for (const name of ['no_such_template', 'pending_tpl', 'rejected_tpl']) {
        const res = await send(template({ name }));
        expectProblem(res, 400);
        expect(errorFields(res)).toEqual(['template.name']);
      }
    });

    it('a template of another app is not found in this one', async () => {
      const other = await factory.activeApp(sys.userId);
      await factory.sendableTemplate(other.id, { name: 'other_apps', body: 'Hi' });
      const res = await send(template({ name: 'other_apps' }));
      expect(errorFields(res)).toEqual(['template.name']);
    });

    it('media templates need template.url (HTTPS); text templates refuse it', async () => {
      await factory.sendableTemplate(app.id, {
        name: 'promo_image',
        type: 'IMAGE',
        category: 'MARKETING',
        body: 'Sale',
      });
      await factory.sendableTemplate(app.id, { name: 'plain_text', body: 'Hi' });
      expect(errorFields(await send(template({ name: 'promo_image' })))).toEqual(['template.url']);
      expect(errorFields(await send(template({ name: 'promo_image', url: 'http://e.com/a.jpg' })))).toEqual([
        'template.url',
      ]);
      expect(errorFields(await send(template({ name: 'plain_text', url: 'https://e.com/a.jpg' })))).toEqual([
        'template.url',
      ]);
      await drain('marketing');
      const ok = await send(template({ name: 'promo_image', url: 'https://cdn.example.com/sale.jpg' }));
      expect(ok.status).toBe(201);
      const [queued] = await drain('marketing');
      expect(queued.body).toMatchObject({ priority: 'marketing', category: 'MARKETING' });
      expect(queued.body.content).toMatchObject({
        template: { media: { type: 'IMAGE', url: 'https://cdn.example.com/sale.jpg' } },
      });
    });

    it('a name in several languages needs template.language', async () => {
      await factory.sendableTemplate(app.id, { name: 'greeting', language: 'en', body: 'Hello' });
      await factory.sendableTemplate(app.id, { name: 'greeting', language: 'pt_BR', body: 'Olá' });
      expect(errorFields(await send(template({ name: 'greeting' })))).toEqual(['template.language']);
      await drain('service');
      const res = await send(template({ name: 'greeting', language: 'pt_BR' }));
      expect(res.status).toBe(201);
      const [queued] = await drain('service');
      expect(queued.body.content).toMatchObject({ template: { language: 'pt_BR', rendered_text: 'Olá' } });
    });

    it('is_mm_lite sends a marketing template as MARKETING_LITE when the app supports it', async () => {
      const lite = await factory.activeApp(sys.userId, { is_mm_lite_supported: true, message_limit: 'TIER_UNLIMITED' });
      await factory.sendableTemplate(lite.id, { name: 'lite_promo', category: 'MARKETING', body: 'Sale' });
      await factory.sendableTemplate(app.id, { name: 'lite_promo', category: 'MARKETING', body: 'Sale' });
      await drain('marketing');
      const body = { ...template({ name: 'lite_promo' }), is_mm_lite: true };
      expect((await send(body, { appId: lite.id })).status).toBe(201);
      expect((await send(body)).status).toBe(201);
      const queued = await drain('marketing');
      expect(
        queued.map((q) => [
          q.body.category,
          (q.body.content as { template: { is_mm_lite: boolean } }).template.is_mm_lite,
        ]),
      ).toEqual([
        ['MARKETING_LITE', true],
        ['MARKETING', false],
      ]);
    });

    it('a SERVICE template is sent, priced and held as UTILITY, never as the free SERVICE conversation', async () => {
      await factory.sendableTemplate(app.id, { name: 'service_tpl', category: 'SERVICE', body: 'Your order shipped' });
      await drain('service');
      const res = await send(template({ name: 'service_tpl' }));
      expect(res.status).toBe(201);
      const [queued] = await drain('service');
      expect(queued.body.category).toBe('UTILITY');
      const view = await call('GET', `/v1/wa/apps/${app.id}/messages/${res.body.message.id}`, { auth: sys.auth });
      expect(view.body).toMatchObject({ category: 'UTILITY', price: 0.02 });
    });
  });

  describe('status codes', () => {
    it('401 without a token or with a revoked one', async () => {
      expectProblem(await send(text('a'), { auth: '' }), 401, '/problems/unauthorized');
      const revoked = await factory.user('system');
      await factory.revoke(revoked.token);
      expectProblem(await send(text('a'), { auth: revoked.auth }), 401);
    });

    it("403 for a real user's token, another tenant's app, an inactive, blocked or stopped app", async () => {
      const realUser = await factory.user('user');
      expectProblem(await send(text('a'), { auth: realUser.auth }), 403);
      const stranger = await factory.user('system', { balance: 10 });
      expectProblem(await send(text('a'), { auth: stranger.auth }), 403, '/problems/forbidden');
      const inactive = await factory.app(sys.userId);
      expectProblem(await send(text('a'), { appId: inactive.id }), 403);
      const stopped = await factory.activeApp(sys.userId, { is_stopped: true });
      await factory.openConversation(stopped.id, recipient);
      expectProblem(await send(text('a'), { appId: stopped.id }), 403);
      const blocked = await factory.activeApp(sys.userId);
      await factory.dataSource.query(`UPDATE apps SET status = 'BLOCKED' WHERE id = $1`, [blocked.id]);
      expectProblem(await send(text('a'), { appId: blocked.id }), 403);
    });

    it('404 for an unknown or malformed app id', async () => {
      expectProblem(await send(text('a'), { appId: 999999 }), 404, '/problems/not-found');
      expectProblem(await send(text('a'), { appId: 'abc' }), 404);
    });

    it('422 template-required outside the 24-hour window, free-form allowed inside it', async () => {
      const fresh = '380501234567';
      const res = await send(text('hello?', fresh));
      expectProblem(res, 422, '/problems/template-required');
      await factory.openConversation(app.id, fresh, 25 * 3600);
      expectProblem(await send(text('hello?', fresh)), 422, '/problems/template-required');
      await factory.openConversation(app.id, fresh, 23 * 3600);
      expect((await send(text('hello!', fresh))).status).toBe(201);
    });

    it("an inbound message (message.received on the app's number) opens the window", async () => {
      const customer = '551199887766';
      expectProblem(await send(text('hi', customer)), 422, '/problems/template-required');
      const event: EventEnvelope = {
        id: newEventId(),
        type: 'message.received',
        created_at: unixSeconds(),
        channel: 'whatsapp',
        app_id: null,
        data: {
          connection_id: app.phoneNumberId,
          waba_id: app.wabaId,
          from: customer,
          provider_message_id: 'wamid.IN1',
          type: 'text',
          text: 'Hello shop',
          timestamp: unixSeconds(),
        },
      };
      await publishDurable(nats.js, topology.eventSubject('message.received'), event, event.id);
      await waitFor(async () => (await send(text('hi', customer))).status === 201, 10_000, 'window open');
      // Another app (another number) of the same tenant is not affected.
      const other = await factory.activeApp(sys.userId);
      expectProblem(await send(text('hi', customer), { appId: other.id }), 422, '/problems/template-required');
    });

    it('422 insufficient-balance when the balance cannot pay the price', async () => {
      const poor = await factory.user('system', { balance: 0.01 });
      const poorApp = await factory.activeApp(poor.userId, { message_limit: 'TIER_UNLIMITED' });
      await factory.sendableTemplate(poorApp.id, { name: 'util', category: 'UTILITY', body: 'Hi' });
      const res = await send(template({ name: 'util' }), {
        auth: poor.auth,
        appId: poorApp.id,
      });
      expectProblem(res, 422, '/problems/insufficient-balance');
      const [balance] = await factory.dataSource.query(`SELECT available, held FROM balances WHERE user_id = $1`, [
        poor.userId,
      ]);
      expect(balance).toEqual({ available: '0.0100', held: '0.0000' });
    });

    it('429 messaging-tier-exceeded past the unique recipients of TIER_50; a repeat recipient still passes', async () => {
      const tiered = await factory.activeApp(sys.userId, { message_limit: 'TIER_50' });
      await factory.sendableTemplate(tiered.id, { name: 'tier_tpl', body: 'Hi' });
      const tpl = (phone: string) => template({ name: 'tier_tpl' }, phone);
      const phones = Array.from({ length: 50 }, (_, i) => `4470000${String(i).padStart(4, '0')}`);
      for (const phone of phones) expect((await send(tpl(phone), { appId: tiered.id })).status).toBe(201);
      const over = await send(tpl('447000009999'), { appId: tiered.id });
      expectProblem(over, 429, '/problems/messaging-tier-exceeded');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(23 * 3600);
      expect((await send(tpl(phones[0]), { appId: tiered.id })).status).toBe(201);
      // Free-form replies are not business-initiated: the tier does not apply.
      await factory.openConversation(tiered.id, '447000009999');
      expect((await send(text('reply', '447000009999'), { appId: tiered.id })).status).toBe(201);
    });
  });

  describe('content and status', () => {
    it('the content never lands in Postgres', async () => {
      const secret = 'secret-body-7f3a9c';
      expect((await send(text(`This is the ${secret}`))).status).toBe(201);
      const columns: { table_name: string; column_name: string }[] = await factory.dataSource.query(
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_schema = 'api' AND data_type IN ('text', 'character varying', 'character', 'jsonb', 'json')`,
      );
      expect(columns.length).toBeGreaterThan(10);
      for (const c of columns) {
        const [row] = await factory.dataSource.query(
          `SELECT count(*)::int AS n FROM api."${c.table_name}" WHERE "${c.column_name}"::text LIKE $1`,
          [`%${secret}%`],
        );
        expect({ column: `${c.table_name}.${c.column_name}`, n: row.n }).toEqual({
          column: `${c.table_name}.${c.column_name}`,
          n: 0,
        });
      }
    });

    it('GET the message: status QUEUED, masked recipient, timeline, no content', async () => {
      const sent = await send(text('status please'));
      const res = await call('GET', `/v1/wa/apps/${app.id}/messages/${sent.body.message.id}`, { auth: sys.auth });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: sent.body.message.id,
        status: 'QUEUED',
        kind: 'TEXT',
        category: 'SERVICE',
        recipient: '7999*****22',
        timeline: [{ status: 'QUEUED', timestamp: expect.any(Number) }],
      });
      expect(res.text).not.toContain('status please');
      expectProblem(await call('GET', `/v1/wa/apps/${app.id}/messages/nope`, { auth: sys.auth }), 404);
      const stranger = await factory.user('system');
      expectProblem(
        await call('GET', `/v1/wa/apps/${app.id}/messages/${sent.body.message.id}`, { auth: stranger.auth }),
        403,
      );
    });

    it('a publish the stream does not confirm: the send stands, its retry answers the same message', async () => {
      await factory.sendableTemplate(app.id, { name: 'util_unconfirmed', category: 'UTILITY', body: 'Hi' });
      const jsm = await nats.jsm();
      await jsm.streams.delete(topology.outboundStream('service'));
      const body = template({ name: 'util_unconfirmed' });
      const headers = { 'idempotency-key': 'unconfirmed-1' };
      const first = await call('POST', `/v1/wa/apps/${app.id}/messages`, { auth: sys.auth, body, headers });
      expect(first.status).toBe(201);
      const id = first.body.message.id as string;
      // Accepted, not withdrawn: held and queued, its work item kept for the relay.
      const [m] = await factory.dataSource.query(
        `SELECT m.status, h.status AS hold, (SELECT count(*)::int FROM outbox o WHERE o.id = m.id) AS outbox
           FROM messages m JOIN holds h ON h.message_id = m.id WHERE m.id = $1`,
        [id],
      );
      expect(m).toEqual({ status: 'QUEUED', hold: 'HELD', outbox: 1 });
      const again = await call('POST', `/v1/wa/apps/${app.id}/messages`, { auth: sys.auth, body, headers });
      expect(again.status).toBe(201);
      expect(again.body.message.id).toBe(id);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });
  });
});
