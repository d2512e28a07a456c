import { Clock } from '@app/server';
import { GatewayConfig } from '../config';
import { hideMediaLink, MediaLinkInvalidProblem, MediaLinks } from './media-links';

const ACCOUNT = '0190a000-0000-7000-8000-000000000001';
const MESSAGE = '0190a000-0000-7000-8000-000000000002';

function links(nowSeconds: number, secret = 'a-media-link-secret-for-tests'): MediaLinks {
  const config = Object.assign(new GatewayConfig(), {
    MEDIA_LINK_SECRET: secret,
    MEDIA_LINK_TTL_S: 600,
    GATEWAY_PUBLIC_URL: 'https://gw.example/',
  });
  return new MediaLinks(config, { nowSeconds: () => nowSeconds } as Clock);
}

const parts = (url: string) => {
  const u = new URL(url);
  return { expires: u.searchParams.get('expires') ?? undefined, sig: u.searchParams.get('sig') ?? undefined };
};

describe('MediaLinks', () => {
  it('signs a link that opens the message of its account until it expires', () => {
    const signed = links(1000).sign(ACCOUNT, MESSAGE);
    expect(signed.expires_at).toBe(1600);
    expect(signed.url).toMatch(new RegExp(`^https://gw.example/v1/media/${MESSAGE}\\?expires=1600&sig=[0-9a-f]{64}$`));
    const { expires, sig } = parts(signed.url);
    expect(() => links(1599).verify(ACCOUNT, MESSAGE, expires, sig)).not.toThrow();
    expect(() => links(1600).verify(ACCOUNT, MESSAGE, expires, sig)).toThrow(/expired/);
  });

  it('refuses a link altered, of another account or message, or signed with another secret', () => {
    const { expires, sig } = parts(links(1000).sign(ACCOUNT, MESSAGE).url);
    const other = '0190a000-0000-7000-8000-000000000009';
    const cases: [string, string | undefined, string | undefined, MediaLinks][] = [
      [ACCOUNT, String(Number(expires) + 1), sig, links(1000)],
      [ACCOUNT, expires, `${sig!.slice(0, 63)}${sig!.endsWith('0') ? '1' : '0'}`, links(1000)],
      [other, expires, sig, links(1000)],
      [ACCOUNT, expires, sig, links(1000, 'another-secret-entirely')],
      [ACCOUNT, undefined, sig, links(1000)],
      [ACCOUNT, expires, 'zz', links(1000)],
    ];
    for (const [account, e, s, l] of cases) {
      expect(() => l.verify(account, MESSAGE, e, s)).toThrow(MediaLinkInvalidProblem);
    }
    expect(() => links(1000).verify(ACCOUNT, other, expires, sig)).toThrow(MediaLinkInvalidProblem);
  });
});

describe('hideMediaLink', () => {
  it('drops the signature of a media link from a logged path, and leaves other paths alone', () => {
    expect(hideMediaLink(`/v1/media/${MESSAGE}?expires=1600&sig=abc`)).toBe(`/v1/media/${MESSAGE}?{signed}`);
    expect(hideMediaLink('/v1/conversations?limit=1')).toBe('/v1/conversations?limit=1');
  });
});
