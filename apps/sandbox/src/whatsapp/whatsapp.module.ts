import { Module } from '@nestjs/common';
import { GraphAuthGuard } from './graph-auth.guard';
import { GraphController } from './graph.controller';
import { MessagesService } from './messages.service';
import { PhoneNumbersService } from './phone-numbers.service';
import { SandboxClock } from './sandbox-clock';
import { SandboxControlController } from './sandbox-control.controller';
import { TemplatesService } from './templates.service';
import { WebhookDispatcher } from './webhook-dispatcher';

/** Emulator of the WhatsApp Cloud (Graph) API and its webhooks. */
@Module({
  controllers: [SandboxControlController, GraphController],
  providers: [SandboxClock, WebhookDispatcher, PhoneNumbersService, TemplatesService, MessagesService, GraphAuthGuard],
})
export class WhatsAppModule {}
