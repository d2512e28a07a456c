/** A valid TEXT template with every part, to vary one field at a time. */
export function textTemplate(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `order_shipped_${Math.random().toString(36).slice(2, 8)}`,
    language: 'en_US',
    category: 'UTILITY',
    header: 'Order {{1}}',
    header_example: 'Order A1234',
    body: 'Hi {{1}}, your order {{2}} has shipped.',
    body_example: 'Hi Anna, your order A1234 has shipped.',
    footer: 'Acme Shop',
    buttons: [
      { type: 'QUICK_REPLY', text: 'Thanks' },
      {
        type: 'URL',
        text: 'Track',
        url: 'https://shop.example.com/track/{{1}}',
        example: 'https://shop.example.com/track/A1234',
      },
    ],
    ...overrides,
  };
}

/** The smallest valid template: a body and its example. */
export function minimalTemplate(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `minimal_${Math.random().toString(36).slice(2, 10)}`,
    language: 'en',
    category: 'MARKETING',
    body: 'Our summer sale starts today.',
    body_example: 'Our summer sale starts today.',
    ...overrides,
  };
}
