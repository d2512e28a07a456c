import {
  CreatedSubscriptionView,
  newMessageId,
  RotatedSecretView,
  SubscriptionView,
  unixSeconds,
} from '@app/contracts';
import { sleep, waitFor } from '@app/testing';
import { answer, hang, verifies, verify } from './support/receiver';
import { SUITE_SETTINGS, useWebhooksSuite } from './support/webhooks-suite';

describe('event subscriptions and webhook delivery', () => {
  const suite = useWebhooksSuite();
  const { call, subscribe, publish, attempts, deliveries } = suite;
  let [platform, factory, receiver] = [suite.platform, suite.factory, suite.receiver];
  beforeAll(() => ([platform, factory, receiver] = [suite.platform, suite.factory, suite.receiver]));

  describe('the subscription API', () => {
    it('creates, lists, reads, updates and deletes a subscription; the secret is shown once', async () => {
      const user = await factory.user();
      const created = await call<CreatedSubscriptionView>(user, 'POST', '/subscriptions', {
        url: receiver.url('/crud'),
        events: ['message.read', 'message.delivered', 'message.read'],
        app_id: 7,
        description: 'CRM hook',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        url: receiver.url('/crud'),
        events: ['message.delivered', 'message.read'],
        app_id: 7,
        description: 'CRM hook',
        status: 'ACTIVE',
      });
      expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(typeof created.body.created_at).toBe('number');
      const id = created.body.id;

      const got = await call<SubscriptionView>(user, 'GET', `/subscriptions/${id}`);
      expect(got.status).toBe(200);
      expect(got.body).not.toHaveProperty('secret');
      expect(got.body.id).toBe(id);

      const list = await call<SubscriptionView[]>(user, 'GET', '/subscriptions');
      expect(list.body.map((s) => s.id)).toEqual([id]);
      expect(list.body[0]).not.toHaveProperty('secret');

      const patched = await call(user, 'PATCH', `/subscriptions/${id}`, {
        events: '*',
        app_id: null,
        description: 'all events',
      });
      expect(patched.status).toBe(204);
      const after = await call<SubscriptionView>(user, 'GET', `/subscriptions/${id}`);
      expect(after.body).toMatchObject({ events: ['*'], app_id: null, description: 'all events' });

      expect((await call(user, 'DELETE', `/subscriptions/${id}`)).status).toBe(204);
      expect((await call(user, 'GET', `/subscriptions/${id}`)).status).toBe(404);
      expect((await call(user, 'DELETE', `/subscriptions/${id}`)).status).toBe(404);
    });

    it("answers 404 for another tenant's subscription and never shows it in their list", async () => {
      const owner = await factory.user();
      const other = await factory.user();
      const sub = await subscribe(owner, receiver.url('/tenancy'));
      for (const [method, path] of [
        ['GET', `/subscriptions/${sub.id}`],
        ['PATCH', `/subscriptions/${sub.id}`],
        ['DELETE', `/subscriptions/${sub.id}`],
        ['POST', `/subscriptions/${sub.id}/rotate-secret`],
        ['POST', `/subscriptions/${sub.id}/test`],
        ['GET', `/subscriptions/${sub.id}/attempts`],
        ['GET', `/subscriptions/${sub.id}/deliveries`],
      ]) {
        const res = await call(other, method, path, method === 'PATCH' ? { description: 'x' } : undefined);
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      expect((await call<unknown[]>(other, 'GET', '/subscriptions')).body).toEqual([]);
      expect((await call(owner, 'GET', `/subscriptions/not-a-uuid`)).status).toBe(404);
    });

    it('refuses bad input with RFC 9457 problems naming the fields, and wrong tokens with 401/403', async () => {
      const user = await factory.user();
      const bad = await call<{ status: number; errors: { field: string }[] }>(user, 'POST', '/subscriptions', {
        url: 'ftp://example.com/hook',
        events: ['message.exploded'],
        app_id: 'seven',
      });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(bad.body.errors.map((e) => e.field).sort()).toEqual(expect.arrayContaining(['app_id', 'events', 'url']));

      const empty = await call(user, 'POST', '/subscriptions', { url: receiver.url('/x'), events: [] });
      expect(empty.status).toBe(400);
      const unknown = await call(user, 'POST', '/subscriptions', {
        url: receiver.url('/x'),
        events: '*',
        secret: 'mine',
      });
      expect(unknown.status).toBe(400);
      const sub = await subscribe(user, receiver.url('/validation'));
      const emptyPatch = await call(user, 'PATCH', `/subscriptions/${sub.id}`, {});
      expect(emptyPatch.status).toBe(400);
      const badLimit = await call(user, 'GET', `/subscriptions/${sub.id}/attempts?limit=0`);
      expect(badLimit.status).toBe(400);

      expect((await call(null, 'GET', '/subscriptions')).status).toBe(401);
      const realUser = await factory.user('user');
      expect((await call(realUser, 'GET', '/subscriptions')).status).toBe(403);
    });
  });

  describe('delivery', () => {
    it('delivers matching events signed per Standard Webhooks, with the exact signed body and no tenant id', async () => {
      const user = await factory.user();
      const all = await subscribe(user, receiver.url('/signed-all'));
      const readsOnly = await subscribe(user, receiver.url('/signed-reads'), { events: ['message.read'] });
      const otherApp = await subscribe(user, receiver.url('/signed-app99'), { app_id: 99 });
      const event = await publish(user, 'message.delivered');

      await waitFor(() => receiver.at('/signed-all').length === 1, 5000, 'delivery');
      const req = receiver.at('/signed-all')[0];
      expect(req.headers['webhook-id']).toBe(event.id);
      expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(req.headers['content-type']).toBe('application/json');
      const body = verify(all.secret, req);
      expect(body).toEqual({
        id: event.id,
        type: 'message.delivered',
        created_at: event.created_at,
        channel: 'whatsapp',
        app_id: 12,
        data: event.data,
      });
      expect(req.body).not.toContain('user_id');
      expect(verifies(readsOnly.secret, req)).toBe(false);

      const read = await publish(user, 'message.read', { app_id: 99 });
      await waitFor(() => receiver.at('/signed-reads').length === 1, 5000, 'read delivery');
      expect(receiver.at('/signed-reads')[0].headers['webhook-id']).toBe(read.id);
      await waitFor(() => receiver.at('/signed-app99').length === 1, 5000, 'app 99 delivery');
      expect(verify(otherApp.secret, receiver.at('/signed-app99')[0])).toMatchObject({ id: read.id, app_id: 99 });
      // The reads-only and app-99 subscriptions never saw the app-12 delivered event.
      expect(receiver.at('/signed-reads').map((r) => r.headers['webhook-id'])).toEqual([read.id]);
      expect(receiver.at('/signed-app99').map((r) => r.headers['webhook-id'])).toEqual([read.id]);
      expect(receiver.at('/signed-all').map((r) => r.headers['webhook-id'])).toEqual([event.id, read.id]);
    });

    it('retries a 500 on the schedule with the same webhook-id and logs every attempt', async () => {
      const user = await factory.user();
      const path = '/flaky';
      receiver.on(path, (_req, res, n) => {
        res.writeHead(n <= 3 ? 500 : 200, { 'content-type': 'text/plain' });
        res.end(n <= 3 ? `boom ${n}` : 'thanks');
      });
      const sub = await subscribe(user, receiver.url(path));
      const event = await publish(user);
      await waitFor(() => receiver.at(path).length === 4, 10_000, 'four requests');
      const ids = receiver.at(path).map((r) => r.headers['webhook-id']);
      expect(ids).toEqual([event.id, event.id, event.id, event.id]);
      for (const r of receiver.at(path)) expect(verifies(sub.secret, r)).toBe(true);

      const log = await waitFor(async () => {
        const a = await attempts(user, sub.id);
        return a.length === 4 && a;
      });
      expect(log.map((a) => [a.attempt, a.status, a.response_status])).toEqual([
        [4, 'SUCCEEDED', 200],
        [3, 'FAILED', 500],
        [2, 'FAILED', 500],
        [1, 'FAILED', 500],
      ]);
      expect(log[3].response_excerpt).toBe('boom 1');
      expect(log[3].next_retry_at).toEqual(expect.any(Number));
      expect(log[0].next_retry_at).toBeNull();
      expect(log.every((a) => a.latency_ms >= 0 && a.event_id === event.id)).toBe(true);
      const [delivery] = await deliveries(user, sub.id);
      expect(delivery).toMatchObject({ event_id: event.id, status: 'SUCCEEDED', attempts: 4 });
      await sleep(500);
      expect(receiver.at(path)).toHaveLength(4);
    });

    it('a dead or hanging subscriber does not slow deliveries to a healthy one', async () => {
      const user = await factory.user();
      receiver.on('/hangs', hang);
      // Three hanging subscribers hold three of the five slots for the whole timeout.
      for (let i = 0; i < SUITE_SETTINGS.concurrency - 2; i++) await subscribe(user, receiver.url('/hangs'));
      await subscribe(user, 'http://127.0.0.1:1/refused');
      const healthy = await subscribe(user, receiver.url('/healthy'));
      const lags: number[] = [];
      for (let i = 0; i < 8; i++) {
        const published = Date.now();
        const event = await publish(user);
        const got = await waitFor(
          () => receiver.at('/healthy').find((r) => r.headers['webhook-id'] === event.id),
          5000,
          `healthy delivery ${i}`,
        );
        lags.push(got.at - published);
      }
      // The hanging subscriber holds its own slot for the whole timeout on every attempt; the
      // healthy one must not wait behind it.
      expect(Math.max(...lags)).toBeLessThan(SUITE_SETTINGS.timeoutMs / 2);
      expect(receiver.at('/hangs').length).toBeGreaterThanOrEqual(1);
      const healthyIds = receiver.at('/healthy').map((r) => r.headers['webhook-id']);
      expect(new Set(healthyIds).size).toBe(8);
      for (const r of receiver.at('/healthy')) expect(verifies(healthy.secret, r)).toBe(true);
      // Order follows the events' order for the healthy subscriber.
      const sent = receiver.at('/healthy').map((r) => (JSON.parse(r.body) as { id: string }).id);
      expect(sent).toEqual(healthyIds);
    });

    it("delivers one message's events in lifecycle order while different messages' events go out together", async () => {
      const user = await factory.user();
      let open = 0;
      let mostOpen = 0;
      // `sent` is answered slowly: were a message's later events not held back, they would overtake it.
      receiver.on('/lifecycle', (req, res) => {
        open++;
        mostOpen = Math.max(mostOpen, open);
        const { type } = JSON.parse(req.body) as { type: string };
        setTimeout(
          () => {
            open--;
            res.end('ok');
          },
          type === 'message.sent' ? 150 : 0,
        );
      });
      await subscribe(user, receiver.url('/lifecycle'));
      const stages = ['message.sent', 'message.delivered', 'message.read'] as const;
      const messages = Array.from({ length: 5 }, () => newMessageId());
      for (const type of stages) {
        await Promise.all(
          messages.map((message_id) =>
            publish(user, type, {
              data: { message_id, recipient: '79990001122', status: 'SENT', timestamp: unixSeconds() },
            }),
          ),
        );
      }
      const total = messages.length * stages.length;
      await waitFor(() => receiver.at('/lifecycle').length === total, 10_000, 'every lifecycle event');
      const received = receiver
        .at('/lifecycle')
        .map((r) => JSON.parse(r.body) as { type: string; data: { message_id: string } });
      for (const id of messages) {
        expect(received.filter((e) => e.data.message_id === id).map((e) => e.type)).toEqual([...stages]);
      }
      // Different messages' events were in flight at the same time.
      expect(mostOpen).toBeGreaterThan(1);
    });

    it('parks a failing endpoint: a few probes instead of an attempt per event, then the backlog flows', async () => {
      const user = await factory.user();
      let recoverAt = Infinity;
      receiver.on('/outage', (_req, res) => {
        if (recoverAt === Infinity) recoverAt = Date.now() + 600;
        res.writeHead(Date.now() < recoverAt ? 500 : 200);
        res.end();
      });
      const sub = await subscribe(user, receiver.url('/outage'));
      const events = 20;
      await Promise.all(Array.from({ length: events }, () => publish(user)));
      await waitFor(
        async () => (await deliveries(user, sub.id)).filter((d) => d.status === 'SUCCEEDED').length === events,
        15_000,
        'every event delivered after the outage',
      );
      const log = await attempts(user, sub.id);
      const failed = log.filter((a) => a.status === 'FAILED');
      // Without parking every event would have had its own failed attempt during the outage.
      expect(failed.length).toBeGreaterThanOrEqual(1);
      expect(failed.length).toBeLessThan(events);
      expect(log.filter((a) => a.status === 'SUCCEEDED')).toHaveLength(events);
      expect(receiver.at('/outage')).toHaveLength(log.length);
    });

    it('does not follow redirects: a 3xx is a failed attempt', async () => {
      const user = await factory.user();
      receiver.on('/moved', answer(302, '', { location: receiver.url('/moved-target') }));
      const sub = await subscribe(user, receiver.url('/moved'));
      await publish(user);
      await waitFor(() => receiver.at('/moved').length >= 2, 5000, 'retried redirect');
      expect(receiver.at('/moved-target')).toHaveLength(0);
      const log = await attempts(user, sub.id);
      expect(log[log.length - 1]).toMatchObject({ status: 'FAILED', response_status: 302 });
      expect(log[log.length - 1].error).toMatch(/redirect .*not followed/);
    });

    it('honours Retry-After on 429', async () => {
      const user = await factory.user();
      receiver.on('/busy', (_req, res, n) => {
        res.writeHead(n === 1 ? 429 : 200, n === 1 ? { 'retry-after': '2' } : {});
        res.end();
      });
      const sub = await subscribe(user, receiver.url('/busy'));
      await publish(user);
      await waitFor(() => receiver.at('/busy').length === 2, 8000, 'retry after Retry-After');
      const [first, second] = receiver.at('/busy');
      // The schedule alone would retry after 200 ms.
      expect(second.at - first.at).toBeGreaterThanOrEqual(1900);
      const log = await attempts(user, sub.id);
      expect(log.map((a) => a.response_status)).toEqual([200, 429]);
    });

    it('a 410 disables the subscription, announces endpoint.disabled, and re-enabling resumes delivery', async () => {
      const user = await factory.user();
      receiver.on('/gone', answer(410, 'unsubscribed'));
      const gone = await subscribe(user, receiver.url('/gone'));
      const watcher = await subscribe(user, receiver.url('/watcher'), { events: ['endpoint.disabled'] });
      await publish(user);
      await waitFor(() => receiver.at('/watcher').length === 1, 8000, 'endpoint.disabled event');
      const notice = verify(watcher.secret, receiver.at('/watcher')[0]) as {
        type: string;
        data: { subscription_id: string; url: string; reason: string };
      };
      expect(notice.type).toBe('endpoint.disabled');
      expect(notice.data).toEqual({ subscription_id: gone.id, url: gone.url, reason: expect.stringMatching(/410/) });
      expect(receiver.at('/gone')).toHaveLength(1);
      const state = await call<SubscriptionView>(user, 'GET', `/subscriptions/${gone.id}`);
      expect(state.body).toMatchObject({ status: 'DISABLED', disabled_reason: expect.stringMatching(/410/) });
      expect(state.body.disabled_at).toEqual(expect.any(Number));

      // Disabled: new events are not delivered, a test event is refused.
      await publish(user);
      await sleep(400);
      expect(receiver.at('/gone')).toHaveLength(1);
      expect((await call(user, 'POST', `/subscriptions/${gone.id}/test`)).status).toBe(409);

      receiver.on('/gone', answer(200));
      expect((await call(user, 'PATCH', `/subscriptions/${gone.id}`, { enabled: true })).status).toBe(204);
      const event = await publish(user);
      await waitFor(
        () => receiver.at('/gone').some((r) => r.headers['webhook-id'] === event.id),
        5000,
        'delivery after re-enable',
      );
    });

    it('marks a delivery failed after the last retry; resending it after the receiver recovers succeeds', async () => {
      const user = await factory.user();
      receiver.on('/down', answer(500, 'down'));
      const sub = await subscribe(user, receiver.url('/down'));
      const event = await publish(user);
      await waitFor(async () => (await deliveries(user, sub.id))[0]?.status === 'FAILED', 10_000, 'delivery failed');
      expect(receiver.at('/down')).toHaveLength(SUITE_SETTINGS.retryScheduleMs.length + 1);
      const [failed] = await deliveries(user, sub.id);
      expect(failed).toMatchObject({ event_id: event.id, status: 'FAILED', next_attempt_at: null });

      receiver.on('/down', answer(204));
      const resent = await call(user, 'POST', `/subscriptions/${sub.id}/deliveries/${failed.id}/resend`);
      expect(resent.status).toBe(202);
      expect(resent.body).toEqual({ delivery_id: failed.id, status: 'PENDING' });
      await waitFor(
        async () => (await deliveries(user, sub.id))[0]?.status === 'SUCCEEDED',
        5000,
        'resent delivery succeeded',
      );
      const last = receiver.at('/down').at(-1)!;
      expect(last.headers['webhook-id']).toBe(event.id);
      expect(verify(sub.secret, last)).toMatchObject({ id: event.id });
      const other = await factory.user();
      expect((await call(other, 'POST', `/subscriptions/${sub.id}/deliveries/${failed.id}/resend`)).status).toBe(404);
      expect(
        (await call(user, 'POST', `/subscriptions/${sub.id}/deliveries/00000000-0000-7000-8000-000000000000/resend`))
          .status,
      ).toBe(404);
    });

    it('disables a subscription that keeps failing past the limit and announces it', async () => {
      const user = await factory.user();
      receiver.on('/always-fails', answer(503, 'maintenance'));
      const failing = await subscribe(user, receiver.url('/always-fails'));
      const watcher = await subscribe(user, receiver.url('/watcher-2'), { events: ['endpoint.disabled'] });
      // Keep events coming so that attempts keep failing past the disable-after period.
      const feeder = setInterval(() => void publish(user).catch(() => undefined), 400);
      try {
        await waitFor(
          () => receiver.at('/watcher-2').length === 1,
          SUITE_SETTINGS.disableAfterMs + 8000,
          'endpoint.disabled',
        );
      } finally {
        clearInterval(feeder);
      }
      const notice = verify(watcher.secret, receiver.at('/watcher-2')[0]) as { data: Record<string, string> };
      expect(notice.data).toMatchObject({ subscription_id: failing.id, reason: expect.stringMatching(/failed for/) });
      const state = await call<SubscriptionView>(user, 'GET', `/subscriptions/${failing.id}`);
      expect(state.body.status).toBe('DISABLED');
      // What was still pending is failed (and resendable), not silently dropped.
      // An attempt already in flight when the subscription was disabled settles a moment later.
      let list = await deliveries(user, failing.id);
      await waitFor(
        async () => (list = await deliveries(user, failing.id)).every((d) => d.status === 'FAILED'),
        5000,
        'pending deliveries failed',
      ).catch(() => undefined);
      expect(list.map((d) => d.status).filter((s) => s !== 'FAILED')).toEqual([]);
    });

    it('sends a test event through the normal path', async () => {
      const user = await factory.user();
      const sub = await subscribe(user, receiver.url('/test-event'), {
        events: ['message.read'],
        app_id: 5,
      });
      const res = await call<{ event_id: string; delivery_id: string }>(user, 'POST', `/subscriptions/${sub.id}/test`);
      expect(res.status).toBe(202);
      await waitFor(() => receiver.at('/test-event').length === 1, 5000, 'test event');
      const body = verify(sub.secret, receiver.at('/test-event')[0]) as {
        id: string;
        app_id: number;
        data: object;
      };
      expect(body).toMatchObject({ id: res.body.event_id, type: 'message.delivered', app_id: 5 });
      expect(body.data).toMatchObject({ test: true, status: 'DELIVERED' });
    });

    it('after a rotation both secrets verify during the grace period, only the new one after', async () => {
      const user = await factory.user();
      const sub = await subscribe(user, receiver.url('/rotating'));
      const rotated = await call<RotatedSecretView>(user, 'POST', `/subscriptions/${sub.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(sub.secret);
      const rotatedAt = Date.now();

      await publish(user);
      await waitFor(() => receiver.at('/rotating').length === 1, 5000, 'delivery in grace');
      const inGrace = receiver.at('/rotating')[0];
      expect(inGrace.headers['webhook-signature'].split(' ')).toHaveLength(2);
      expect(verifies(rotated.body.secret, inGrace)).toBe(true);
      expect(verifies(sub.secret, inGrace)).toBe(true);
      expect(inGrace.at - rotatedAt).toBeLessThan(SUITE_SETTINGS.rotationGraceMs);

      await sleep(Math.max(0, rotatedAt + SUITE_SETTINGS.rotationGraceMs + 200 - Date.now()));
      await publish(user);
      await waitFor(() => receiver.at('/rotating').length === 2, 5000, 'delivery after grace');
      const after = receiver.at('/rotating')[1];
      expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
      expect(verifies(rotated.body.secret, after)).toBe(true);
      expect(verifies(sub.secret, after)).toBe(false);
    });

    it('exposes deliveries, failures, retry backlog and lag per subscription on /metrics', async () => {
      const user = await factory.user();
      receiver.on('/metered', (_req, res, n) => {
        res.writeHead(n === 1 ? 500 : 200);
        res.end();
      });
      const sub = await subscribe(user, receiver.url('/metered'));
      await publish(user);
      await waitFor(() => receiver.at('/metered').length === 2, 5000, 'two attempts');
      await sleep(100);
      const text = await (await fetch(`${platform.adminUrls.webhooks}/metrics`)).text();
      const line = (name: string) =>
        text.split('\n').find((l) => l.startsWith(name) && l.includes(`subscription_id="${sub.id}"`));
      expect(line('webhook_deliveries_total')).toBeDefined();
      expect(text).toMatch(
        new RegExp(`webhook_deliveries_total\\{[^}]*subscription_id="${sub.id}"[^}]*outcome="success"[^}]*\\} 1`),
      );
      expect(text).toMatch(
        new RegExp(`webhook_deliveries_total\\{[^}]*subscription_id="${sub.id}"[^}]*outcome="failure"[^}]*\\} 1`),
      );
      expect(text).toMatch(new RegExp(`webhook_delivery_failures_total\\{[^}]*subscription_id="${sub.id}"[^}]*\\} 1`));
      expect(line('webhook_delivery_lag_seconds_count')).toMatch(/ 1$/);
      expect(text).toContain('# TYPE webhook_retry_backlog gauge');

      // A delivery told to come back later is counted in the retry backlog.
      receiver.on('/later', answer(503, '', { 'retry-after': '60' }));
      const waiting = await subscribe(user, receiver.url('/later'));
      await publish(user);
      await waitFor(() => receiver.at('/later').length === 1, 5000, 'first attempt');
      await waitFor(
        async () =>
          new RegExp(`webhook_retry_backlog\\{[^}]*subscription_id="${waiting.id}"[^}]*\\} 1`).test(
            await (await fetch(`${platform.adminUrls.webhooks}/metrics`)).text(),
          ),
        5000,
        'retry backlog of 1',
      );
    });

    it('answers 503 when the webhooks service is down, and works again when it is back', async () => {
      const user = await factory.user();
      await platform.stopService('webhooks');
      try {
        const res = await call(user, 'GET', '/subscriptions');
        expect(res.status).toBe(503);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      } finally {
        await platform.startService('webhooks');
      }
      expect((await call(user, 'GET', '/subscriptions')).status).toBe(200);
    });
  });
});
