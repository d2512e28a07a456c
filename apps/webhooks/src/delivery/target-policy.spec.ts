import type { LookupAddress } from 'node:dns';
import { loadConfig } from '@app/config';
import { Clock } from '@app/server';
import { WebhooksConfig } from '../config';
import { webhookTargets } from './target-policy';
import { WebhookSender } from './webhook-sender';

// Production needs the keys that seal signing secrets; any will do here.
const WEBHOOK_SECRET_KEYS = `k1:${Buffer.alloc(32, 1).toString('base64')}`;
const production = loadConfig(WebhooksConfig, { NODE_ENV: 'production', WEBHOOK_SECRET_KEYS });
const development = loadConfig(WebhooksConfig, { NODE_ENV: 'development', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
const resolving =
  (...answers: string[][]) =>
  async (): Promise<LookupAddress[]> => {
    const next = answers.length > 1 ? answers.shift()! : answers[0];
    return next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('webhook target policy (SSRF)', () => {
  it('protects whatever NODE_ENV says unless WEBHOOKS_ALLOW_PRIVATE_TARGETS is true', () => {
    for (const NODE_ENV of ['development', 'test', 'production']) {
      expect(webhookTargets(loadConfig(WebhooksConfig, { NODE_ENV, WEBHOOK_SECRET_KEYS })).strict).toBe(true);
      const flagged = loadConfig(WebhooksConfig, {
        NODE_ENV,
        WEBHOOK_SECRET_KEYS,
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'false',
      });
      expect(webhookTargets(flagged).strict).toBe(true);
    }
    expect(webhookTargets(development).strict).toBe(false);
    expect(() => loadConfig(WebhooksConfig, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(
      /WEBHOOKS_ALLOW_PRIVATE_TARGETS/,
    );
  });

  it('refuses an attempt whose host has re-resolved to a private address since it was checked', async () => {
    // First answer (the check before sending) is public; the connect-time lookup gets loopback.
    const policy = webhookTargets(production, resolving(['93.184.215.14'], ['127.0.0.1']));
    const sender = new WebhookSender(policy, 2000, new Clock());
    try {
      const res = await sender.send({
        url: 'https://rebind.example.com/hook',
        eventId: 'evt_1',
        payload: '{}',
        secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      });
      expect(res.status).toBeNull();
      expect(res.error).toMatch(/private or local/);
    } finally {
      sender.close();
    }
  });

  it('refuses an attempt to a private literal address in production before connecting', async () => {
    const sender = new WebhookSender(webhookTargets(production, resolving(['127.0.0.1'])), 2000, new Clock());
    const res = await sender.send({
      url: 'https://127.0.0.1:9/hook',
      eventId: 'evt_1',
      payload: '{}',
      secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    });
    sender.close();
    expect(res).toMatchObject({ status: null, error: expect.stringMatching(/refused by the target policy/) });
  });
});
