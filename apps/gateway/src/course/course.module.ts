import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { GatewayMessagesModule } from '../messages/gateway-messages.module';
import { PublicRateLimitModule } from '../public-rate-limit/public-rate-limit.guard';
import { CourseBodyParser } from './course-body.parser';
import { CourseInboundController } from './course-inbound.controller';
import { CourseInboundService } from './course-inbound.service';
import { CourseOutboxWorker } from './course-outbox.worker';
import { CourseProcessor } from './course-processor';
import { CourseReplies } from './course-replies';
import { CourseRepliesRepository } from './course-replies.repository';
import { CourseTriggersController } from './course-triggers.controller';
import { CourseStatusConsumer } from './course-status.consumer';
import { CourseController } from './course.controller';
import { CourseRepository } from './course.repository';
import { CourseService } from './course.service';

/** Course platforms: their events in, rules into sends, message statuses back out (docs/course.md). */
@Module({
  imports: [AccountsModule, ConnectionsModule, ConversationsModule, GatewayMessagesModule, PublicRateLimitModule],
  controllers: [CourseInboundController, CourseController, CourseTriggersController],
  providers: [
    Clock,
    CourseBodyParser,
    CourseRepository,
    CourseRepliesRepository,
    CourseReplies,
    CourseInboundService,
    CourseProcessor,
    CourseService,
    CourseStatusConsumer,
    CourseOutboxWorker,
  ],
})
export class CourseModule {}
