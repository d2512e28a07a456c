import { ApiFactory } from '../../../test/support/factories';
import { campaignView, gatewayAccount, GatewayCall, gatewayClient } from '../../../test/support/campaigns';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxBot } from '../../../test/support/sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A file of `size` bytes starting with `magic` (the library reads the type from it). */
const file = (magic: number[], size = 2_000) => {
  const b = Buffer.alloc(size, 1);
  Buffer.from(magic).copy(b);
  return b;
};
const JPEG = [0xff, 0xd8, 0xff, 0xe0];
const PDF = [...Buffer.from('%PDF-1.7\n')];
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

/**
 * A campaign's media library files are checked by the rule of POST /v1/messages when its draft is
 * written and again at the estimate and the launch (422 naming the field, the draft unchanged),
 * and a file a campaign not yet over still sends is not deleted under it (409 naming the campaign).
 */
describe('campaigns sending media library files', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let shop: GatewayCall;
  let other: GatewayCall;
  const tokens: Record<'shop' | 'other', string> = { shop: '', other: '' };

  const upload = async (body: Buffer, type: string, who: 'shop' | 'other' = 'shop') => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(body)], { type }), 'file');
    const res = await fetch(`${platform.urls.gateway}/v1/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens[who]}` },
      body: form,
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as Json).id as string;
  };
  const image = (mediaId: string, caption = 'New this week') => ({ type: 'image', media_id: mediaId, caption });
  const campaign = (definition: Json) =>
    shop('POST', '/v1/campaigns', {
      name: 'Spring',
      audience: { list: 'readers' },
      channels: ['telegram'],
      ...definition,
    });
  const expectUnusable = (res: { status: number; body: Json }, field: string, detail: RegExp) => {
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('/problems/media-unusable');
    expect(res.body.errors).toEqual([{ field, message: expect.stringMatching(detail) }]);
    expect(res.body.detail).toMatch(detail);
  };
  const removeMedia = (id: string) => shop('DELETE', `/v1/media/${id}`);
  const mediaListed = async (id: string) =>
    ((await shop('GET', '/v1/media?limit=100')).body.data as Json[]).some((m) => m.id === id);

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-campaign-media',
      services: ['api', 'gateway', 'sandbox'],
      env: { CAMPAIGN_TICK_MS: '100' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system', { balance: 100 });
    tokens.shop = await gatewayAccount(platform.infra.databaseUrl, 'media campaigns', user.userId);
    tokens.other = await gatewayAccount(platform.infra.databaseUrl, 'media neighbour', user.userId);
    shop = gatewayClient(platform.urls.gateway, tokens.shop);
    other = gatewayClient(platform.urls.gateway, tokens.other);
    const bot = await registerSandboxBot(platform.urls.sandbox, 'telegram');
    expect((await shop('POST', '/v1/connections', { channel: 'telegram', bot_token: bot.token })).status).toBe(201);
    for (const k of [1, 2]) {
      const res = await shop('POST', '/v1/contacts', {
        external_id: `reader-${k}`,
        name: `Reader ${k}`,
        identities: { telegram: String(720000 + k) },
        lists: ['readers'],
      });
      expect(res.status).toBe(201);
    }
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  it('refuses a draft whose content or content variant sends a file it cannot, naming the field', async () => {
    const photo = await upload(file(JPEG), 'image/jpeg');
    const leaflet = await upload(file(PDF), 'application/pdf');
    const theirs = await upload(file(JPEG), 'image/jpeg', 'other');

    expectUnusable(
      await campaign({ content: image('01970000-0000-7000-8000-000000000000') }),
      'content.media_id',
      /^content\.media_id is not a file of the account's media library$/,
    );
    expectUnusable(
      await campaign({ content: image(theirs) }),
      'content.media_id',
      /not a file of the account's media library/,
    );
    expectUnusable(
      await campaign({ content: image(leaflet) }),
      'content.media_id',
      /^content\.media_id is a document file: send it with type document$/,
    );
    expectUnusable(
      await campaign({
        content: image(photo),
        variants: [
          { name: 'Photo', content: image(photo), share: 50 },
          { name: 'Leaflet', content: image(leaflet), share: 50 },
        ],
      }),
      'variants[1].content.media_id',
      /^variants\[1\]\.content\.media_id is a document file/,
    );
    const listed = await shop('GET', '/v1/campaigns');
    expect(listed.body.data).toEqual([]);

    const ok = await campaign({ content: image(photo) });
    expect(ok.status).toBe(201);
    expect(ok.body.content).toEqual(image(photo));
    // The other account's file is its own to send.
    const theirCampaign = await other('POST', '/v1/campaigns', {
      name: 'Neighbour',
      content: image(theirs),
      audience: { list: 'readers' },
      channels: ['telegram'],
    });
    expect([theirCampaign.status, theirCampaign.body.content]).toEqual([201, image(theirs)]);
  });

  it('refuses a change of a draft to a file it cannot send, and keeps the draft as it was', async () => {
    const photo = await upload(file(JPEG), 'image/jpeg');
    const leaflet = await upload(file(PDF), 'application/pdf');
    const draft = await campaign({ content: image(photo) });
    expect(draft.status).toBe(201);
    const id = draft.body.id as string;

    expectUnusable(
      await shop('PATCH', `/v1/campaigns/${id}`, { content: image(leaflet) }),
      'content.media_id',
      /is a document file/,
    );
    expect((await campaignView(shop, id)).content).toEqual(image(photo));
    const changed = await shop('PATCH', `/v1/campaigns/${id}`, {
      content: { type: 'document', media_id: leaflet, caption: 'Our prices' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.content.media_id).toBe(leaflet);
  });

  it("refuses the estimate and the launch of a campaign whose bot template's file is gone, naming template", async () => {
    const photo = await upload(file(JPEG), 'image/jpeg');
    const created = await shop('POST', '/v1/templates', {
      name: 'spring_photo',
      language: 'en',
      category: 'MARKETING',
      content: { type: 'image', media_id: photo, caption: 'Spring is here, {{1}}' },
    });
    expect(created.status).toBe(201);
    const draft = await campaign({ template: 'spring_photo', language: 'en', params: ['{{contact.name}}'] });
    expect(draft.status).toBe(201);
    const id = draft.body.id as string;
    expect((await shop('POST', `/v1/campaigns/${id}/estimate`)).status).toBe(200);

    // A bot template does not hold its file: deleting it is allowed, and its campaigns say so.
    expect((await removeMedia(photo)).status).toBe(204);
    const gone = /^template spring_photo \(en\)'s content\.media_id is not a file of the account's media library$/;
    expectUnusable(await shop('POST', `/v1/campaigns/${id}/estimate`), 'template', gone);
    expectUnusable(await shop('POST', `/v1/campaigns/${id}/launch`), 'template', gone);
    const view = await campaignView(shop, id);
    expect([view.state, view.recipients, view.money.held]).toEqual(['draft', 0, 0]);
    // A new draft of it is refused as well.
    expectUnusable(
      await campaign({ template: 'spring_photo', language: 'en', params: ['{{contact.name}}'] }),
      'template',
      gone,
    );
  });

  it('keeps a file a draft sends until the draft changes or goes, naming the draft', async () => {
    const photo = await upload(file(JPEG), 'image/jpeg');
    const draft = await campaign({ name: 'Tulips', content: image(photo) });
    const id = draft.body.id as string;

    const refused = await removeMedia(photo);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ type: '/problems/media-in-use', campaign_id: id, campaign_state: 'draft' });
    expect(refused.body.detail).toContain('"Tulips"');
    expect(await mediaListed(photo)).toBe(true);

    // The draft sends text instead: the file is free.
    expect((await shop('PATCH', `/v1/campaigns/${id}`, { content: { type: 'text', text: 'Tulips!' } })).status).toBe(
      200,
    );
    expect((await removeMedia(photo)).status).toBe(204);
    expect(await mediaListed(photo)).toBe(false);

    // A deleted draft holds nothing either.
    const again = await upload(file(JPEG), 'image/jpeg');
    const second = await campaign({ name: 'Roses', content: image(again) });
    expect((await removeMedia(again)).status).toBe(409);
    expect((await shop('DELETE', `/v1/campaigns/${second.body.id}`)).status).toBe(204);
    expect((await removeMedia(again)).status).toBe(204);
  });

  it('keeps a file a scheduled campaign sends until it is cancelled', async () => {
    const photo = await upload(file(JPEG), 'image/jpeg');
    const draft = await campaign({
      name: 'Lilies',
      // Only a variant sends the file.
      content: { type: 'text', text: 'Lilies are in' },
      variants: [
        { name: 'A', content: { type: 'text', text: 'Lilies are in' }, share: 50 },
        { name: 'B', content: image(photo), share: 50 },
      ],
      schedule: { start_at: inAnHour() },
    });
    expect(draft.status).toBe(201);
    const id = draft.body.id as string;
    const launched = await shop('POST', `/v1/campaigns/${id}/launch`);
    expect([launched.status, launched.body.state]).toEqual([200, 'scheduled']);

    const refused = await removeMedia(photo);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ campaign_id: id, campaign_state: 'scheduled' });
    expect(await mediaListed(photo)).toBe(true);

    expect((await shop('POST', `/v1/campaigns/${id}/cancel`)).status).toBe(200);
    expect((await removeMedia(photo)).status).toBe(204);
  });
});
