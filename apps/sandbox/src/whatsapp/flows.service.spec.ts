import { flowTokenOfSend } from './flows.controller';
import { SandboxFlowsService } from './flows.service';

describe('the emulated Flows', () => {
  it("lists a WABA's Flows a page at a time and publishes only a DRAFT", () => {
    const flows = new SandboxFlowsService();
    const [a, b] = ['one', 'two'].map((name) => flows.create({ waba_id: '10', name }));
    flows.create({ waba_id: '20', name: 'other' });
    const first = flows.list('10', { limit: '1' });
    expect(first.data.map((f) => f.name)).toEqual(['one']);
    expect(first.paging?.next).toBeDefined();
    const second = flows.list('10', { limit: '1', after: first.paging?.cursors?.after });
    expect(second.data.map((f) => f.name)).toEqual(['two']);
    expect(second.paging?.next).toBeUndefined();

    expect(flows.publish(a.id)).toEqual({ success: true });
    expect(flows.get(a.id)?.status).toBe('PUBLISHED');
    expect(() => flows.publish(a.id)).toThrow(expect.objectContaining({ code: 139002 }));
    flows.deprecate(b.id);
    expect(() => flows.publish(b.id)).toThrow(expect.objectContaining({ code: 139002 }));
    expect(() => flows.publish('404')).toThrow(expect.objectContaining({ code: 100 }));
  });

  it("finds the flow token of an interactive Flow and of a template's FLOW button", () => {
    expect(
      flowTokenOfSend({
        type: 'interactive',
        interactive: { type: 'flow', action: { parameters: { flow_token: 'a' } } },
      }),
    ).toBe('a');
    const template = {
      type: 'template',
      template: {
        components: [
          { type: 'body', parameters: [] },
          {
            type: 'button',
            sub_type: 'flow',
            index: '0',
            parameters: [{ type: 'action', action: { flow_token: 'b' } }],
          },
        ],
      },
    };
    expect(flowTokenOfSend(template)).toBe('b');
    expect(flowTokenOfSend({ type: 'text', text: { body: 'hi' } })).toBeNull();
  });
});
