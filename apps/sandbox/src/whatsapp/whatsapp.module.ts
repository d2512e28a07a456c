import { Module } from '@nestjs/common';
import { AccountSignalsService } from './account-signals.service';
import { ArrivalsController } from './arrivals.controller';
import { FlowsControlController, FlowsGraphController } from './flows.controller';
import { SandboxFlowsService } from './flows.service';
import { GraphAuthGuard } from './graph-auth.guard';
import { GraphController } from './graph.controller';
import { GraphMessagesService } from './messages.service';
import { PhoneNumbersService } from './phone-numbers.service';
import { ReadMarkers, ReadMarkersController } from './read-markers';
import { SandboxPricingService } from './pricing.service';
import { SandboxClock } from './sandbox-clock';
import { SandboxControlController } from './sandbox-control.controller';
import { SignupControlController } from './signup-control.controller';
import { SignupGraphController } from './signup-graph.controller';
import { SignupService } from './signup.service';
import { SandboxTemplatesService } from './templates.service';
import { WebhookDispatcher } from './webhook-dispatcher';

/** Emulator of the WhatsApp Cloud (Graph) API and its webhooks. */
@Module({
  controllers: [
    SandboxControlController,
    SignupControlController,
    SignupGraphController,
    GraphController,
    ArrivalsController,
    ReadMarkersController,
    FlowsControlController,
    FlowsGraphController,
  ],
  providers: [
    SandboxClock,
    WebhookDispatcher,
    PhoneNumbersService,
    SandboxTemplatesService,
    GraphMessagesService,
    SandboxPricingService,
    SignupService,
    GraphAuthGuard,
    AccountSignalsService,
    ReadMarkers,
    SandboxFlowsService,
  ],
})
export class WhatsAppModule {}
