import { Module } from '@nestjs/common';
import { WaAppsModule } from '../wa-apps/wa-apps.module';
import { WhatsAppTemplatesChannel } from '../templates/whatsapp-templates.channel';
import { OnboardingController } from './onboarding.controller';
import { OnboardingService } from './onboarding.service';

/** Connecting a WhatsApp number to an app through its embed_link_url. */
@Module({
  imports: [WaAppsModule],
  controllers: [OnboardingController],
  providers: [OnboardingService, WhatsAppTemplatesChannel],
})
export class OnboardingModule {}
