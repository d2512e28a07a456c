import { EventEnvelope, EventType, unixSeconds } from '@app/contracts';
import { Clock, ServiceUnavailableProblem } from '@app/server';
import { AppEntity } from '../wa-apps/app.entity';
import { AppEvents } from '../wa-apps/app-events';
import { WaAppsRepository } from '../wa-apps/wa-apps.repository';
import { EventHandlersRegistry } from '../events';
import { TemplateEntity } from './template.entity';
import { TemplatesRepository } from './templates.repository';
import { TemplatesService } from './templates.service';
import { WhatsAppTemplatesChannel } from './whatsapp-templates.channel';

const app = {
  id: 1,
  userId: 'u',
  status: 'ACTIVE',
  wabaId: '111',
  phoneNumberId: '222',
} as AppEntity;

const stored = (over: Partial<TemplateEntity> = {}): TemplateEntity =>
  ({
    id: 5,
    appId: 1,
    waId: '900',
    name: 'hello',
    language: 'en',
    category: 'UTILITY',
    type: 'TEXT',
    status: 'PENDING',
    quality: 'UNKNOWN',
    mediaUrl: null,
    header: null,
    body: { text: 'Hello', example: 'Hello', placeholders: [] },
    footer: null,
    buttons: [],
    failureDetails: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...over,
  }) as TemplateEntity;

function setup() {
  const templates = {
    exists: jest.fn().mockResolvedValue(false),
    insert: jest.fn(),
    findByChannelRef: jest.fn(),
    updateState: jest.fn(),
    listForApp: jest.fn(),
    moveCategory: jest.fn().mockResolvedValue(true),
  };
  const appEvents = { templateUpdated: jest.fn() };
  const apps = { findByWabaId: jest.fn().mockResolvedValue(app) };
  const channel = { submit: jest.fn(), list: jest.fn() };
  const registry = new EventHandlersRegistry();
  const service = new TemplatesService(
    templates as unknown as TemplatesRepository,
    apps as unknown as WaAppsRepository,
    channel as unknown as WhatsAppTemplatesChannel,
    registry,
    appEvents as unknown as AppEvents,
    new Clock(),
  );
  service.onModuleInit();
  return { service, templates, apps, channel, registry, appEvents };
}

const event = (
  data: Record<string, unknown>,
  createdAt = unixSeconds(),
  type: EventType = 'template.status_changed',
): EventEnvelope => ({
  id: 'evt_1',
  type,
  created_at: createdAt,
  channel: 'whatsapp',
  app_id: null,
  data,
});

describe('TemplatesService', () => {
  it('stores nothing when the channel cannot be reached', async () => {
    const { service, templates, channel } = setup();
    channel.submit.mockRejectedValue(new ServiceUnavailableProblem('down'));
    await expect(
      service.create(app, { name: 'hello', language: 'en', category: 'UTILITY', body: 'Hello', body_example: 'Hello' }),
    ).rejects.toBeInstanceOf(ServiceUnavailableProblem);
    expect(templates.insert).not.toHaveBeenCalled();
  });

  it('applies a rejection with failure_details once; the same event again changes nothing', async () => {
    const { registry, templates } = setup();
    const reason = { code: 'INVALID_FORMAT', message: 'bad' };
    templates.findByChannelRef.mockResolvedValueOnce(stored());
    const e = event({ waba_id: '111', wa_id: '900', name: 'hello', language: 'en', status: 'REJECTED', reason });
    await registry.dispatch(e);
    expect(templates.updateState).toHaveBeenCalledWith(5, {
      status: 'REJECTED',
      quality: 'UNKNOWN',
      failureDetails: reason,
    });
    templates.findByChannelRef.mockResolvedValueOnce(stored({ status: 'REJECTED', failureDetails: reason }));
    await registry.dispatch(e);
    expect(templates.updateState).toHaveBeenCalledTimes(1);
  });

  it('clears failure_details on approval and keeps the quality when the event has none', async () => {
    const { registry, templates } = setup();
    templates.findByChannelRef.mockResolvedValue(
      stored({ status: 'REJECTED', quality: 'GREEN', failureDetails: { code: 'X', message: 'y' } }),
    );
    await registry.dispatch(event({ waba_id: '111', wa_id: '900', status: 'APPROVED' }));
    expect(templates.updateState).toHaveBeenCalledWith(5, {
      status: 'APPROVED',
      quality: 'GREEN',
      failureDetails: null,
    });
  });

  it('retries a recent callback for a template not stored yet, and drops an old one', async () => {
    const { registry, templates } = setup();
    templates.findByChannelRef.mockResolvedValue(null);
    const data = { waba_id: '111', wa_id: '900', status: 'APPROVED' };
    await expect(registry.dispatch(event(data))).rejects.toThrow(/not stored/);
    await expect(registry.dispatch(event(data, unixSeconds() - 3600))).resolves.toBeUndefined();
  });

  it('ignores callbacks of business accounts it does not know', async () => {
    const { registry, apps, templates } = setup();
    apps.findByWabaId.mockResolvedValue(null);
    await registry.dispatch(event({ waba_id: '999', wa_id: '900', status: 'APPROVED' }));
    expect(templates.findByChannelRef).not.toHaveBeenCalled();
  });

  it('sync applies the channel’s status to the templates that differ', async () => {
    const { service, templates, channel } = setup();
    templates.listForApp.mockResolvedValue([stored(), stored({ id: 6, waId: '901', status: 'APPROVED' })]);
    channel.list.mockResolvedValue({
      templates: [
        { wa_id: '900', name: 'hello', language: 'en', status: 'APPROVED', category: 'UTILITY', quality: 'GREEN' },
        { wa_id: '901', name: 'other', language: 'en', status: 'APPROVED', category: 'UTILITY', quality: 'UNKNOWN' },
      ],
    });
    expect(await service.syncApp(app)).toBe(1);
    expect(templates.updateState).toHaveBeenCalledWith(5, {
      status: 'APPROVED',
      quality: 'GREEN',
      failureDetails: null,
    });
  });

  it('a category change from the channel moves the template once; one it already files under changes nothing', async () => {
    const { registry, templates, appEvents } = setup();
    const update = (category: string, reason = 'channel_recategorized') =>
      event(
        { waba_id: '111', wa_id: '900', name: 'hello', language: 'en', previous_category: 'UTILITY', category, reason },
        unixSeconds(),
        'template.updated',
      );
    templates.findByChannelRef.mockResolvedValue(stored({ category: 'UTILITY' }));
    await registry.dispatch(update('MARKETING'));
    expect(templates.moveCategory).toHaveBeenCalledWith(5, 'UTILITY', 'MARKETING');
    // A SERVICE template is UTILITY on the channel; a malformed category or the api's own sync event is not applied.
    templates.findByChannelRef.mockResolvedValue(stored({ category: 'SERVICE' }));
    await registry.dispatch(update('UTILITY'));
    await registry.dispatch(update('GOLD'));
    await registry.dispatch(update('MARKETING', 'sync'));
    expect(templates.moveCategory).toHaveBeenCalledTimes(1);
    // Subscribers hear of a callback's change from the callback's own event.
    expect(appEvents.templateUpdated).not.toHaveBeenCalled();
  });

  it('sync follows a category the channel changed without a callback and tells subscribers', async () => {
    const { service, templates, channel, appEvents } = setup();
    templates.listForApp.mockResolvedValue([stored({ status: 'APPROVED', quality: 'GREEN', category: 'UTILITY' })]);
    channel.list.mockResolvedValue({
      templates: [
        { wa_id: '900', name: 'hello', language: 'en', status: 'APPROVED', category: 'MARKETING', quality: 'GREEN' },
      ],
    });
    expect(await service.syncApp(app)).toBe(1);
    expect(templates.updateState).not.toHaveBeenCalled();
    expect(templates.moveCategory).toHaveBeenCalledWith(5, 'UTILITY', 'MARKETING');
    expect(appEvents.templateUpdated).toHaveBeenCalledWith(app, {
      waba_id: '111',
      wa_id: '900',
      name: 'hello',
      language: 'en',
      template_id: 5,
      previous_category: 'UTILITY',
      category: 'MARKETING',
      reason: 'sync',
    });
    // Another sync (or callback) moved it first: nothing is told twice.
    templates.moveCategory.mockResolvedValue(false);
    expect(await service.syncApp(app)).toBe(0);
    expect(appEvents.templateUpdated).toHaveBeenCalledTimes(1);
  });
});
