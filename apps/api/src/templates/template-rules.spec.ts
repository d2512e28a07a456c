import { checkButtons, checkMediaUrl, checkVariables, placeholdersFrom } from './template-rules';

describe('template rules', () => {
  it('reads the value of each variable from the example', () => {
    expect(placeholdersFrom('Hi {{1}}, order {{2}}.', 'Hi Anna Lee, order A-1.')).toEqual(['Anna Lee', 'A-1']);
    expect(placeholdersFrom('{{1}} is here', 'Bob is here')).toEqual(['Bob']);
    expect(placeholdersFrom('Code: {{1}}', 'Code: 42')).toEqual(['42']);
    expect(placeholdersFrom('{{1}} and {{1}}', 'x and x')).toEqual(['x']);
    expect(placeholdersFrom('No variables', 'Anything at all')).toEqual([]);
  });

  it('refuses examples that do not fit the text', () => {
    expect(placeholdersFrom('Hi {{1}}!', 'Hello Anna!')).toBeNull();
    expect(placeholdersFrom('Hi {{1}}!', 'Hi !')).toBeNull();
    expect(placeholdersFrom('Hi {{1}}!', 'Hi Anna')).toBeNull();
    expect(placeholdersFrom('{{1}} and {{1}}', 'x and y')).toBeNull();
  });

  it('checks variable numbering, syntax, count and separation', () => {
    expect(checkVariables('body', 'Hi {{1}} {{2}}')).toEqual([]);
    expect(checkVariables('body', 'Hi {{2}}')[0].message).toMatch(/without gaps/);
    expect(checkVariables('body', 'Hi {{ 1 }}')[0].message).toMatch(/malformed/);
    expect(checkVariables('body', 'Hi {{1}}{{2}}')[0].message).toMatch(/separated/);
    const eleven = Array.from({ length: 11 }, (_, i) => `{{${i + 1}}}`).join(' ');
    expect(checkVariables('body', eleven).map((e) => e.message)).toContain('body may have at most 10 variables');
  });

  it('accepts media by the extension of an https URL', () => {
    expect(checkMediaUrl('IMAGE', 'https://a.example.com/x.PNG', 'f')).toEqual([]);
    expect(checkMediaUrl('IMAGE', 'http://a.example.com/x.png', 'f')).toHaveLength(1);
    expect(checkMediaUrl('DOCUMENT', 'https://a.example.com/x.pdf?dl=1', 'f')).toEqual([]);
    expect(checkMediaUrl('VIDEO', 'https://a.example.com/x.avi', 'f')).toHaveLength(1);
  });

  it('URL buttons take the full example URL or the value of {{1}}', () => {
    const errors: { field: string; message: string }[] = [];
    const [full, value] = checkButtons(
      [
        { type: 'URL', text: 'a', url: 'https://s.example.com/o/{{1}}', example: 'https://s.example.com/o/77' },
        { type: 'URL', text: 'b', url: 'https://s.example.com/o/{{1}}', example: '78' },
      ],
      errors,
    );
    expect(errors).toEqual([]);
    expect(full).toMatchObject({ example: 'https://s.example.com/o/77', placeholders: ['77'] });
    expect(value).toMatchObject({ example: 'https://s.example.com/o/78', placeholders: ['78'] });
  });
});
