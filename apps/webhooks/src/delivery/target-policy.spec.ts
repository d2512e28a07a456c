import type { LookupAddress } from 'node:dns';
import { loadConfig } from '@app/config';
import { WebhooksConfig } from '../config';
import { isPublicAddress, TargetPolicy } from './target-policy';
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

describe('target policy (SSRF)', () => {
  it('knows public addresses from private, local and reserved ones', () => {
    for (const ip of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111']) expect(isPublicAddress(ip)).toBe(true);
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect([ip, isPublicAddress(ip)]).toEqual([ip, false]);
    }
  });

  it('in production needs https and a host whose every address is public', async () => {
    const policy = new TargetPolicy(production, resolving(['93.184.215.14', '10.0.0.7']));
    expect(await policy.check('http://hooks.example.com/x')).toEqual({ ok: false, reason: 'must use https' });
    const mixed = await policy.check('https://hooks.example.com/x');
    expect(mixed.ok).toBe(false);
    // The caller learns the rule, never which internal address the name resolved to.
    expect(!mixed.ok && mixed.reason).toBe('must not resolve to a private or local address');
    const ok = await new TargetPolicy(production, resolving(['93.184.215.14'])).check('https://hooks.example.com/x');
    expect(ok.ok).toBe(true);
    const unresolvable = new TargetPolicy(production, async () => {
      throw new Error('ENOTFOUND');
    });
    expect(await unresolvable.check('https://nowhere.invalid/')).toEqual({
      ok: false,
      reason: 'host nowhere.invalid does not resolve',
    });
  });

  it('protects whatever NODE_ENV says unless WEBHOOKS_ALLOW_PRIVATE_TARGETS is true', () => {
    for (const NODE_ENV of ['development', 'test', 'production']) {
      expect(new TargetPolicy(loadConfig(WebhooksConfig, { NODE_ENV, WEBHOOK_SECRET_KEYS })).strict).toBe(true);
      const flagged = loadConfig(WebhooksConfig, {
        NODE_ENV,
        WEBHOOK_SECRET_KEYS,
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'false',
      });
      expect(new TargetPolicy(flagged).strict).toBe(true);
    }
    expect(new TargetPolicy(development).strict).toBe(false);
    expect(() => loadConfig(WebhooksConfig, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(
      /WEBHOOKS_ALLOW_PRIVATE_TARGETS/,
    );
  });

  it('with private targets allowed accepts http and loopback without resolving', async () => {
    const policy = new TargetPolicy(development, () => Promise.reject(new Error('must not resolve')));
    expect((await policy.check('http://127.0.0.1:8080/hook')).ok).toBe(true);
    expect((await policy.check('ftp://127.0.0.1/hook')).ok).toBe(false);
    expect((await policy.check('http://user:pw@127.0.0.1/hook')).ok).toBe(false);
  });

  it('refuses an attempt whose host has re-resolved to a private address since it was checked', async () => {
    // First answer (the check before sending) is public; the connect-time lookup gets loopback.
    const policy = new TargetPolicy(production, resolving(['93.184.215.14'], ['127.0.0.1']));
    const sender = new WebhookSender(policy, 2000);
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
    const sender = new WebhookSender(new TargetPolicy(production, resolving(['127.0.0.1'])), 2000);
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
