import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { OnboardingController } from './onboarding.controller';
import { OnboardingService } from './onboarding.service';

/** Connecting a WhatsApp number to an app through its embed_link_url. */
@Module({
  imports: [AppsModule],
  controllers: [OnboardingController],
  providers: [OnboardingService],
})
export class OnboardingModule {}
