import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { PublicRateLimitModule } from '../public-rate-limit/public-rate-limit.guard';
import { LinksController } from './links.controller';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';

/** Campaigns' tracked links: made at launch, followed at `/l/<token>`, clicks recorded and reported. */
@Module({
  imports: [PublicRateLimitModule],
  controllers: [LinksController],
  providers: [Clock, LinksRepository, LinksService],
  exports: [LinksService, LinksRepository],
})
export class LinksModule {}
