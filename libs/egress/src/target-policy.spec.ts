import type { LookupAddress } from 'node:dns';
import { isPublicAddress } from './public-address';
import { TargetPolicy } from './target-policy';

const resolving =
  (...addresses: string[]) =>
  async (): Promise<LookupAddress[]> =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
const strict = (...addresses: string[]) => new TargetPolicy({ allowPrivate: false }, resolving(...addresses));
const relaxed = new TargetPolicy({ allowPrivate: true }, () => Promise.reject(new Error('must not resolve')));

describe('target policy (SSRF), every tenant-chosen address', () => {
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
      // IPv4-compatible IPv6 (::/96), as `[::127.0.0.1]` parses: not the public internet either.
      '::7f00:1',
      '::808:808',
      '64:ff9b::7f00:1',
      'not-an-ip',
    ]) {
      expect([ip, isPublicAddress(ip)]).toEqual([ip, false]);
    }
  });

  it('refuses loopback, metadata and unspecified targets however they are spelt, before resolving', async () => {
    const policy = new TargetPolicy({ allowPrivate: false }, () => Promise.reject(new Error('must not resolve')));
    for (const url of [
      'https://127.0.0.1:8443/x',
      'https://[::ffff:127.0.0.1]:8443/x',
      'https://[::127.0.0.1]/x',
      'https://0x7f000001/x',
      'https://2130706433/x',
      'https://127.1/x',
      'https://0.0.0.0/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest/meta-data/',
    ]) {
      expect([url, policy.checkForm(url)]).toEqual([
        url,
        { ok: false, reason: 'must not point to a private or local address' },
      ]);
      expect([url, await policy.check(url)]).toEqual([
        url,
        { ok: false, reason: 'must not point to a private or local address' },
      ]);
    }
    expect((await strict('127.0.0.1', '::1').check('https://localhost/x')).ok).toBe(false);
  });

  it('needs https and a host whose every address is public, and does not say which address it found', async () => {
    expect(await strict('93.184.215.14').check('http://hooks.example.com/x')).toEqual({
      ok: false,
      reason: 'must use https',
    });
    expect(await strict('93.184.215.14', '10.0.0.7').check('https://hooks.example.com/x')).toEqual({
      ok: false,
      reason: 'must not resolve to a private or local address',
    });
    expect((await strict('93.184.215.14').check('https://hooks.example.com/x')).ok).toBe(true);
    const unresolvable = new TargetPolicy({ allowPrivate: false }, async () => {
      throw new Error('ENOTFOUND');
    });
    expect(await unresolvable.check('https://nowhere.invalid/')).toEqual({
      ok: false,
      reason: 'host nowhere.invalid does not resolve',
    });
  });

  it('refuses credentials in the URL in every mode, so none is stored or shown back', async () => {
    for (const policy of [strict('93.184.215.14'), relaxed]) {
      expect(await policy.check('https://user:pw@school.example.com/')).toEqual({
        ok: false,
        reason: 'must not carry credentials',
      });
      expect(policy.checkForm('https://user@school.example.com/')).toEqual({
        ok: false,
        reason: 'must not carry credentials',
      });
    }
  });

  it('with private targets allowed accepts http and loopback without resolving, and only http(s)', async () => {
    expect((await relaxed.check('http://127.0.0.1:8080/hook')).ok).toBe(true);
    expect((await relaxed.check('ftp://127.0.0.1/hook')).ok).toBe(false);
    expect(relaxed.dispatcher()).toBeUndefined();
    expect(strict('93.184.215.14').dispatcher()).toBeDefined();
  });

  it('refuses at connect time a name that now resolves to a private address', async () => {
    const lookup = strict('127.0.0.1').connectLookup()!;
    const err = await new Promise<NodeJS.ErrnoException | null>((r) => lookup('rebind.example.com', {}, (e) => r(e)));
    expect(err).toMatchObject({ code: 'EADDRNOTPUBLIC' });
  });
});
