import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppsRepository } from '../apps/apps.repository';
import { ApiConfig } from '../config';
import { TemplatesService } from './templates.service';

/**
 * Periodic pull of template statuses from the channel (TEMPLATE_SYNC_INTERVAL_MS; 0 disables):
 * repairs any `template.status_changed` callback that was missed. Differences go through the
 * same code path as the callback, so a repeated or concurrent sync is harmless.
 */
@Injectable()
export class TemplateSyncService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TemplateSyncService.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly apps: AppsRepository,
    private readonly templates: TemplatesService,
    private readonly config: ApiConfig,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.config.TEMPLATE_SYNC_INTERVAL_MS;
    if (every > 0) {
      this.timer = setInterval(() => void this.syncAll(), every);
      this.timer.unref();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass over every connected app; a pass already under way is joined, not doubled. */
  syncAll(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<number> {
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
