import { ValidationProblem } from '@app/server';
import { CampaignQuote, CampaignRecipientInput } from '@app/contracts';
import { parseCampaignDefinition } from './campaign-definition';
import { placeRecipients } from './campaign-content-estimate';
import { EstimateTally } from './campaign-estimate';

const BUTTONS = {
  type: 'buttons',
  text: 'Open this weekend?',
  buttons: [
    { id: 'yes', title: 'Yes' },
    { id: 'no', title: 'No' },
  ],
};
const base = { name: 'Weekend', audience: { list: 'regulars' }, channels: ['whatsapp', 'telegram'] };
const noUrlCheck = () => null;

function refusedFields(raw: unknown, checkUrl: (url: string) => string | null = noUrlCheck): string[] {
  try {
    parseCampaignDefinition(raw, checkUrl);
  } catch (err) {
    if (!(err instanceof ValidationProblem)) throw err;
    return [...new Set((err.extensions.errors as { field: string }[]).map((e) => e.field))].sort();
  }
  throw new Error('expected a validation problem');
}

describe('a content campaign definition', () => {
  it('takes a content, with or without a fallback template and its params', () => {
    expect(parseCampaignDefinition({ ...base, content: BUTTONS }, noUrlCheck)).toEqual({
      ...base,
      content: BUTTONS,
      params: [],
    });
    const withFallback = { ...base, content: BUTTONS, fallback_template: 'weekend_open', params: ['{{contact.name}}'] };
    expect(parseCampaignDefinition(withFallback, noUrlCheck)).toEqual(withFallback);
  });

  it('takes template or content, exactly one', () => {
    expect(refusedFields({ ...base, template: 'promo', content: BUTTONS })).toEqual(['content']);
    expect(refusedFields(base)).toEqual(['template']);
    expect(refusedFields({ ...base, template: 'promo', fallback_template: 'other' })).toEqual(['fallback_template']);
  });

  it("checks the content by POST /v1/messages' validator and every channel's limits, naming the field", () => {
    expect(refusedFields({ ...base, content: { type: 'text' } })).toEqual(['content.text']);
    expect(refusedFields({ ...base, content: { type: 'poll', text: 'x' } })).toEqual(['content.type']);
    expect(refusedFields({ ...base, content: { type: 'image', url: 'http://cdn.example.com/a.jpg' } })).toEqual([
      'content.url',
    ]);
    expect(
      refusedFields({ ...base, content: { type: 'image', url: 'https://10.0.0.1/a.jpg' } }, () => 'is not allowed'),
    ).toEqual(['content.url']);
    // Telegram takes 4,096 characters of text: a longer one fits no campaign sending there.
    expect(refusedFields({ ...base, content: { type: 'text', text: 'x'.repeat(4097) } })).toEqual(['content.text']);
    expect(
      refusedFields({
        ...base,
        content: { type: 'flow', text: 'x', flow_id: '1', cta: 'Open' },
      }),
    ).toEqual(['content.type']);
  });

  it('refuses template-only fields without a fallback template', () => {
    expect(refusedFields({ ...base, content: BUTTONS, params: ['x'], language: 'en' })).toEqual(['language', 'params']);
  });

  it("takes content variants in a content campaign, each checked as the campaign's content", () => {
    const variants = [
      { name: 'Buttons', content: BUTTONS, share: 50 },
      { name: 'Text', content: { type: 'text', text: 'Open this weekend' }, share: 50 },
    ];
    expect(parseCampaignDefinition({ ...base, content: BUTTONS, variants }, noUrlCheck)).toMatchObject({ variants });
    expect(
      refusedFields({
        ...base,
        content: BUTTONS,
        variants: [
          { name: 'A', template: 'a', share: 50 },
          { name: 'B', content: { type: 'text', text: 'x'.repeat(4097) }, share: 50 },
        ],
      }),
    ).toEqual(['variants[0].content.type', 'variants[0].template', 'variants[1].content.text']);
    expect(
      refusedFields({
        ...base,
        content: BUTTONS,
        variants: [variants[0], { ...variants[1], content: { type: 'text' } }],
      }),
    ).toEqual(['variants[1].content.text']);
    // A template campaign's variants are templates.
    expect(
      refusedFields({
        ...base,
        template: 'promo',
        variants: [
          { ...variants[0], template: 'a' },
          { ...variants[1], template: 'b' },
        ],
      }),
    ).toEqual(['variants[0].content', 'variants[1].content']);
  });
});

describe('placeRecipients', () => {
  const quote = (content: CampaignQuote['content']): CampaignQuote => ({
    category: 'SERVICE',
    currency: 'USD',
    prices: { whatsapp: 0, telegram: 0.01, max: 0 },
    balance: 100,
    tier: null,
    pacing: { whatsapp: 80, telegram: 30, max: 30 },
    runner: undefined as unknown as CampaignQuote['runner'],
    content,
  });
  const recipient = (seq: number, channels: ('whatsapp' | 'telegram')[]): CampaignRecipientInput => ({
    seq,
    contact_id: `c${seq}`,
    external_id: null,
    time_zone: 'UTC',
    route: channels.map((channel) => ({ channel, to: `${channel}-${seq}` })),
    params: [],
  });
  const batch = [recipient(1, ['whatsapp']), recipient(2, ['whatsapp', 'telegram']), recipient(3, ['telegram'])];
  const first = [0, 0, 0];
  // Recipient 1's window is open, 2's closed.
  const windows = async (to: string[]) => to.map((a) => a === 'whatsapp-1');

  it('counts a closed window on the next channel, or as window_closed, without a fallback', async () => {
    const q = quote({ whatsapp: true, fallback_price: null });
    const tally = new EstimateTally(q, null);
    const place = await placeRecipients(q, [...batch, recipient(4, ['whatsapp'])], [...first, 0], windows);
    [0, 1, 2, 3].forEach((i) => place(tally, i));
    const result = tally.result(
      () => ({ time: { seconds: 0, finish_at: 0, limited_by: 'pacing' }, limits: [], tierDays: 0 }) as never,
    );
    expect(result.excluded.window_closed).toBe(1);
    expect(result.channels).toEqual({
      whatsapp: { recipients: 1, price: 0, cost: 0 },
      telegram: { recipients: 2, price: 0.01, cost: 0.02 },
    });
  });

  it('counts a closed window at the fallback template price on WhatsApp', async () => {
    const q = quote({ whatsapp: true, fallback_price: 0.05 });
    const tally = new EstimateTally(q, null);
    const place = await placeRecipients(q, batch, first, windows);
    [0, 1, 2].forEach((i) => place(tally, i));
    const result = tally.result(
      () => ({ time: { seconds: 0, finish_at: 0, limited_by: 'pacing' }, limits: [], tierDays: 0 }) as never,
    );
    expect(result.channels.whatsapp).toEqual({ recipients: 2, price: 0, cost: 0.05 });
    expect(result.cost.total).toBe(0.06);
    expect(result.excluded.window_closed).toBe(0);
  });
});
