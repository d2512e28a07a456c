import { compileParams, fillParams } from './campaign-params';

const anna = {
  name: 'Anna',
  external_id: 'crm-1',
  language: 'ru',
  attributes: { plan: 'gold', visits: 3, empty: '' },
};

describe('campaign params', () => {
  it("fills every reference with the contact's field, attributes as text, and keeps literal text", () => {
    const params = compileParams([
      'Hello {{contact.name}}!',
      '{{ contact.external_id }}/{{contact.language}}',
      '{{contact.attributes.plan}} x{{contact.attributes.visits}}',
      'no references',
      '',
    ]);
    expect(fillParams(params, anna)).toEqual(['Hello Anna!', 'crm-1/ru', 'gold x3', 'no references', '']);
  });

  it('answers null when a referenced field is missing or empty', () => {
    expect(fillParams(compileParams(['{{contact.name}}']), { ...anna, name: null })).toBeNull();
    expect(fillParams(compileParams(['{{contact.attributes.empty}}']), anna)).toBeNull();
    expect(fillParams(compileParams(['{{contact.attributes.nothing}}']), anna)).toBeNull();
    expect(fillParams(compileParams(['{{contact.name}}']), { ...anna, name: '  ' })).toBeNull();
  });

  it('takes only attributes the contact has: names every object inherits are missing, not filled', () => {
    const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
    for (const key of inherited) {
      expect(fillParams(compileParams([`Hello {{contact.attributes.${key}}}`]), anna)).toBeNull();
    }
    // A contact given such an attribute has it like any other.
    const own = { ...anna, attributes: { ...anna.attributes, constructor: 'builder' } };
    expect(fillParams(compileParams(['{{contact.attributes.constructor}}']), own)).toEqual(['builder']);
  });
});
