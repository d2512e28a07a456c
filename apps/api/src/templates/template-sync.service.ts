import { Injectable } from '@nestjs/common';
import { PeriodicService } from '@app/server';
import { WaAppsRepository } from '../wa-apps/wa-apps.repository';
import { ApiConfig } from '../config';
import { TemplatesService } from './templates.service';

/**
 * Periodic pull of template statuses from the channel (TEMPLATE_SYNC_INTERVAL_MS; 0 disables):
 * repairs any `template.status_changed` callback that was missed. Differences go through the
 * same code path as the callback, so a repeated or concurrent sync is harmless.
 */
@Injectable()
export class TemplateSyncService extends PeriodicService<number> {
  constructor(
    private readonly apps: WaAppsRepository,
    private readonly templates: TemplatesService,
    config: ApiConfig,
  ) {
    super('template sync', config.TEMPLATE_SYNC_INTERVAL_MS);
  }

  /** One pass over every connected app; a pass already under way is joined, not doubled. */
  syncAll(): Promise<number> {
    return this.runNow();
  }

  protected async pass(): Promise<number> {
    let changed = 0;
    for (const app of await this.apps.findConnected()) {
      try {
        changed += await this.templates.syncApp(app);
      } catch (err) {
        // One app's failure (channel down, refused) must not stop the others.
        this.logger.warn({ err, appId: app.id }, 'template sync failed for app');
      }
    }
    if (changed) this.logger.log({ changed }, 'template sync applied changes');
    return changed;
  }
}
