import { Controller, Get, Query } from '@nestjs/common';
import { SenderArrivals } from '@app/contracts';
import { GraphMessagesService } from './messages.service';

/** Arrival figures per sending number (docs/sandbox.md), for pacing tests and benchmarks. */
@Controller('_sandbox/whatsapp')
export class ArrivalsController {
  constructor(private readonly messages: GraphMessagesService) {}

  @Get('arrivals')
  arrivals(@Query('phone_number_id') phoneNumberId?: string): SenderArrivals[] {
    return this.messages.arrivals(phoneNumberId);
  }
}
