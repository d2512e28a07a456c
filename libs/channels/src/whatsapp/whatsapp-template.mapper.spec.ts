import { TemplateSubmission } from '@app/contracts';
import {
  exampleValues,
  fromGraphTemplate,
  fromGraphTemplateStatus,
  templateVariables,
  toGraphTemplateCreate,
} from './whatsapp-template.mapper';

describe('template examples', () => {
  it('finds variables in order of appearance', () => {
    expect(templateVariables('Hi {{1}}, order {{2}} ({{1}})')).toEqual([1, 2]);
    expect(templateVariables('No variables')).toEqual([]);
  });

  it('reads values from the filled-in example text', () => {
    expect(exampleValues('Hi {{1}}, your order {{2}} ships today', 'Hi Anna, your order 123 ships today')).toEqual([
      'Anna',
      '123',
    ]);
  });

  it('reads a list with one value per variable', () => {
    expect(exampleValues('Hi {{1}}, order {{2}}', 'Anna, 123')).toEqual(['Anna', '123']);
    expect(exampleValues('Code {{1}}', 'ABC-1')).toEqual(['ABC-1']);
  });

  it('falls back to the whole example for each variable', () => {
    expect(exampleValues('{{1}} and {{2}} and {{3}}', 'something')).toEqual(['something', 'something', 'something']);
    expect(exampleValues('No variables', 'x')).toEqual([]);
  });
});

describe('toGraphTemplateCreate', () => {
  const text: TemplateSubmission = {
    name: 'order_update',
    language: 'en',
    category: 'SERVICE',
    type: 'TEXT',
    header: { text: 'Order {{1}}', example: 'Order 42' },
    body: { text: 'Hello {{1}}, it ships on {{2}}.', example: 'Hello Anna, it ships on Monday.' },
    footer: 'Reply STOP to opt out',
    buttons: [
      { type: 'QUICK_REPLY', text: 'Thanks' },
      {
        type: 'URL',
        text: 'Track',
        url: 'https://shop.example.com/track/{{1}}',
        example: 'https://shop.example.com/track/42',
      },
      { type: 'URL', text: 'Shop', url: 'https://shop.example.com' },
    ],
  };

  it('maps header, body, footer and buttons with their examples', () => {
    expect(toGraphTemplateCreate(text)).toEqual({
      name: 'order_update',
      language: 'en',
      category: 'UTILITY',
      parameter_format: 'POSITIONAL',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', example: { header_text: ['42'] } },
        { type: 'BODY', text: 'Hello {{1}}, it ships on {{2}}.', example: { body_text: [['Anna', 'Monday']] } },
        { type: 'FOOTER', text: 'Reply STOP to opt out' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'QUICK_REPLY', text: 'Thanks' },
            {
              type: 'URL',
              text: 'Track',
              url: 'https://shop.example.com/track/{{1}}',
              example: ['https://shop.example.com/track/42'],
            },
            { type: 'URL', text: 'Shop', url: 'https://shop.example.com' },
          ],
        },
      ],
    });
  });

  it('maps a media template to a header with the media sample', () => {
    const graph = toGraphTemplateCreate({
      name: 'promo',
      language: 'ru',
      category: 'MARKETING',
      type: 'IMAGE',
      example_media_url: 'https://cdn.example.com/p.png',
      body: { text: 'Sale!', example: 'Sale!' },
    });
    expect(graph.category).toBe('MARKETING');
    expect(graph.components).toEqual([
      { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://cdn.example.com/p.png'] } },
      { type: 'BODY', text: 'Sale!' },
    ]);
  });

  it('refuses a media template without its sample', () => {
    expect(() => toGraphTemplateCreate({ ...text, type: 'VIDEO', header: null, example_media_url: null })).toThrow(
      /example_media_url/,
    );
  });
});

describe('Graph templates in the platform words', () => {
  it.each([
    ['APPROVED', 'APPROVED'],
    ['PENDING', 'PENDING'],
    ['IN_APPEAL', 'PENDING'],
    ['REJECTED', 'REJECTED'],
    ['PAUSED', 'PAUSED'],
    ['DISABLED', 'FAILED'],
    ['PENDING_DELETION', 'FAILED'],
    ['FLAGGED', 'APPROVED'],
    ['REINSTATED', 'APPROVED'],
  ])('%s is %s', (graph, ours) => {
    expect(fromGraphTemplateStatus(graph)).toBe(ours);
  });

  it('maps a listed template with its quality and rejection reason', () => {
    expect(
      fromGraphTemplate({
        id: '123',
        name: 'x',
        language: 'en',
        status: 'REJECTED',
        category: 'MARKETING',
        quality_score: { score: 'UNKNOWN' },
        rejected_reason: 'INVALID_FORMAT',
      }),
    ).toEqual({
      wa_id: '123',
      name: 'x',
      language: 'en',
      status: 'REJECTED',
      category: 'MARKETING',
      quality: 'UNKNOWN',
      reason: { code: 'INVALID_FORMAT', message: 'The template has an invalid format.' },
    });
    expect(
      fromGraphTemplate({
        id: '1',
        name: 'y',
        language: 'en',
        status: 'APPROVED',
        category: 'UTILITY',
        rejected_reason: 'NONE',
        quality_score: { score: 'GREEN' },
      }),
    ).toMatchObject({ status: 'APPROVED', quality: 'GREEN', reason: null });
  });
});
