import { CampaignRecipientInput } from '@app/contracts';
import { hideLinkToken, LINK_TOKEN, trackPage } from './tracked-links';

const recipient = (
  seq: number,
  params: string[],
  over: Partial<CampaignRecipientInput> = {},
): CampaignRecipientInput => ({
  seq,
  contact_id: `c${seq}`,
  external_id: null,
  time_zone: 'UTC',
  route: [{ channel: 'whatsapp', to: '79990000000' }],
  params,
  ...over,
});
const ids = { accountId: 'a', campaignId: 'k', base: 'https://gw.example' };

describe('trackPage', () => {
  it('replaces each https URL of a sendable recipient with a short link to it, leaving the rest', () => {
    const { page, links } = trackPage(
      [
        recipient(1, ['Anna', 'See https://shop.example/sale?c=1. Or http://old.example', 'https://a.example/x']),
        recipient(2, ['https://shop.example/sale'], { skip: 'missing_param', params: [] }),
        recipient(3, ['no links'], { variant: 1 }),
      ],
      ids,
    );
    expect(links.map((l) => [l.seq, l.url])).toEqual([
      [1, 'https://shop.example/sale?c=1'],
      [1, 'https://a.example/x'],
    ]);
    for (const l of links) expect(l.token).toMatch(LINK_TOKEN);
    expect(page[0].params).toEqual([
      'Anna',
      `See https://gw.example/l/${links[0].token}. Or http://old.example`,
      `https://gw.example/l/${links[1].token}`,
    ]);
    expect(page[1].params).toEqual([]);
    expect(page[2].params).toEqual(['no links']);
    // The token names nothing: not the contact, the campaign or the URL.
    expect(links[0].token).not.toContain('c1');
    expect(new Set(links.map((l) => l.token)).size).toBe(2);
  });
});

describe('hideLinkToken', () => {
  it('leaves the token out of a logged path, and other paths as they are', () => {
    expect(hideLinkToken('/l/AbCdEfGhIjKlMnOpQrStUv')).toBe('/l/{token}');
    expect(hideLinkToken('/l/AbCdEfGhIjKlMnOpQrStUv?x=1')).toBe('/l/{token}');
    expect(hideLinkToken('/v1/campaigns')).toBe('/v1/campaigns');
  });
});
