import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { TemplateSyncService } from './template-sync.service';
import { TemplatesController } from './templates.controller';
import { TemplatesRepository } from './templates.repository';
import { TemplatesService } from './templates.service';
import { WhatsAppTemplatesChannel } from './whatsapp-templates.channel';

/** Message templates: moderation through the WhatsApp channel, status callbacks and periodic sync. */
@Module({
  imports: [AppsModule],
  controllers: [TemplatesController],
  providers: [TemplatesRepository, TemplatesService, TemplateSyncService, WhatsAppTemplatesChannel],
  exports: [TemplatesRepository, TemplatesService, TemplateSyncService],
})
export class TemplatesModule {}
