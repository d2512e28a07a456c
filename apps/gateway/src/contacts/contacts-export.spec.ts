import { contactsCsv } from './contacts-export';
import { parseContactInput } from './contact-fields';
import type { ContactRow, ContactsRepository } from './contacts.repository';
import { EMPTY_CONTACT } from './contacts.service';

const contact = (id: string, attributes: Record<string, string | number>): ContactRow => ({
  ...EMPTY_CONTACT,
  id,
  account_id: 'a',
  external_id: id,
  attributes,
  created_at: new Date(0),
  updated_at: new Date(0),
});

describe('contacts CSV export', () => {
  it("writes each contact's own attributes only: a key another contact has is empty, never inherited", async () => {
    const rows = [contact('c1', { constructor: 'x', toString: 'y' }), contact('c2', { plan: 'gold' })];
    const repo = {
      attributeKeys: async () => ['constructor', 'plan', 'toString'],
      all: async function* () {
        yield rows;
      },
    } as unknown as ContactsRepository;
    let csv = '';
    for await (const chunk of await contactsCsv(repo, 'a', {}, 'UTC')) csv += String(chunk);
    const lines = csv.trim().split('\n');
    expect(lines[0]).toContain('attr.constructor,attr.plan,attr.toString');
    expect(lines[2]).not.toMatch(/native code|object Object/);
    expect(lines[2].split(',').slice(9, 12)).toEqual(['', 'gold', '']);
  });

  it('refuses an attribute named __proto__ rather than dropping it', () => {
    const { errors } = parseContactInput(JSON.parse('{"attributes":{"__proto__":"x","ok":"y"}}'));
    expect(errors).toEqual([{ field: 'attributes.__proto__', message: 'is a reserved name' }]);
  });
});
