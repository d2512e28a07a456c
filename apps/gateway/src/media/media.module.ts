import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { PublicRateLimitModule } from '../public-rate-limit/public-rate-limit.guard';
import { CampaignMedia } from './library/campaign-media';
import { MediaHandlesController } from './library/media-handles.controller';
import { MediaLibraryController } from './library/media-library.controller';
import { MediaLibraryRepository } from './library/media-library.repository';
import { MediaLibraryService } from './library/media-library.service';
import { MediaUploadParser } from './library/media-upload.parser';
import { MediaFetcher } from './media-fetcher';
import { MediaLinks } from './media-links';
import { MediaViews } from './media-views';
import { MediaController } from './media.controller';
import { MediaRepository } from './media.repository';
import { MediaStore, ObjectMediaStore } from './media-store';

/**
 * Inbound media (fetched from the channels into the media store, served by expiring signed links)
 * and the media library (files an account uploads to send by media_id, docs/media.md).
 */
@Module({
  imports: [AccountsModule, ConnectionsModule, PublicRateLimitModule],
  controllers: [MediaController, MediaLibraryController, MediaHandlesController],
  providers: [
    Clock,
    MediaRepository,
    MediaLinks,
    { provide: MediaStore, useClass: ObjectMediaStore },
    MediaFetcher,
    MediaViews,
    MediaLibraryRepository,
    MediaLibraryService,
    MediaUploadParser,
    CampaignMedia,
  ],
  exports: [
    MediaLinks,
    MediaRepository,
    MediaStore,
    MediaViews,
    MediaLibraryRepository,
    MediaLibraryService,
    CampaignMedia,
  ],
})
export class MediaModule {}
