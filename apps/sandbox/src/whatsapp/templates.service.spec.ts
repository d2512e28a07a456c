import { newTemplateId } from './templates.service';

describe('the emulated template ids', () => {
  it('are 16 digits, as Graph gives them, and survive the JSON number a webhook carries them in', () => {
    for (let i = 0; i < 10_000; i++) {
      const id = newTemplateId();
      expect(id).toMatch(/^1\d{15}$/);
      expect(String(JSON.parse(`{"message_template_id":${id}}`).message_template_id)).toBe(id);
    }
  });
});
