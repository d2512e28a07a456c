import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { MediaModule } from '../media/media.module';
import { PurgedMediaCleaner } from './retention-media';
import { ConversationSettingsController } from './retention.controller';
import { RetentionRepository } from './retention.repository';
import { ConversationRetention } from './retention.service';

/** Content retention of conversations: the account's setting and its purge (docs/conversations.md). */
@Module({
  imports: [AccountsModule, MediaModule],
  controllers: [ConversationSettingsController],
  providers: [Clock, RetentionRepository, PurgedMediaCleaner, ConversationRetention],
  exports: [ConversationRetention],
})
export class ConversationRetentionModule {}
