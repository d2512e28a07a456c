import { AppEntity } from '../wa-apps/app.entity';
import { WaAppsRepository } from '../wa-apps/wa-apps.repository';
import { ApiConfig } from '../config';
import { TemplateSyncService } from './template-sync.service';
import { TemplatesService } from './templates.service';

function setup(intervalMs: number) {
  const apps = { findConnected: jest.fn().mockResolvedValue([{ id: 1 }, { id: 2 }] as AppEntity[]) };
  const templates = { syncApp: jest.fn() };
  const config = Object.assign(new ApiConfig(), { TEMPLATE_SYNC_INTERVAL_MS: intervalMs });
  const sync = new TemplateSyncService(
    apps as unknown as WaAppsRepository,
    templates as unknown as TemplatesService,
    config,
  );
  return { sync, apps, templates };
}

describe('TemplateSyncService', () => {
  afterEach(() => jest.useRealTimers());

  it('runs every TEMPLATE_SYNC_INTERVAL_MS, and not at all when it is 0', async () => {
    jest.useFakeTimers();
    const on = setup(1000);
    on.templates.syncApp.mockResolvedValue(0);
    on.sync.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(2500);
    expect(on.apps.findConnected).toHaveBeenCalledTimes(2);
    await on.sync.onApplicationShutdown();

    const off = setup(0);
    off.sync.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(off.apps.findConnected).not.toHaveBeenCalled();
  });

  it('one app failing does not stop the others', async () => {
    const { sync, templates } = setup(0);
    templates.syncApp.mockRejectedValueOnce(new Error('channel down')).mockResolvedValueOnce(3);
    expect(await sync.syncAll()).toBe(3);
    expect(templates.syncApp).toHaveBeenCalledTimes(2);
  });
});
