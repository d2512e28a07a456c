import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { ConnectionsModule } from '../connections/connections.module';
import { PublicRateLimitModule } from '../public-rate-limit/public-rate-limit.guard';
import { MediaFetcher } from './media-fetcher';
import { MediaLinks } from './media-links';
import { MediaViews } from './media-views';
import { MediaController } from './media.controller';
import { MediaRepository } from './media.repository';
import { MediaStore, ObjectMediaStore } from './media-store';

/** Inbound media: fetched from the channels into the media store, served by expiring signed links. */
@Module({
  imports: [ConnectionsModule, PublicRateLimitModule],
  controllers: [MediaController],
  providers: [
    Clock,
    MediaRepository,
    MediaLinks,
    { provide: MediaStore, useClass: ObjectMediaStore },
    MediaFetcher,
    MediaViews,
  ],
  exports: [MediaLinks, MediaRepository, MediaStore, MediaViews],
})
export class MediaModule {}
