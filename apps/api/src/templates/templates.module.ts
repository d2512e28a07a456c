import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { WaAppsModule } from '../wa-apps/wa-apps.module';
import { TemplateSyncService } from './template-sync.service';
import { TemplatesController } from './templates.controller';
import { TemplatesRepository } from './templates.repository';
import { TemplatesService } from './templates.service';
import { WhatsAppTemplatesChannel } from './whatsapp-templates.channel';

/** Message templates: moderation through the WhatsApp channel, status callbacks and periodic sync. */
@Module({
  imports: [AuthModule, EventsModule, RateLimitModule, WaAppsModule],
  controllers: [TemplatesController],
  providers: [Clock, TemplatesRepository, TemplatesService, TemplateSyncService, WhatsAppTemplatesChannel],
  exports: [TemplatesRepository, TemplatesService, TemplateSyncService],
})
export class TemplatesModule {}
