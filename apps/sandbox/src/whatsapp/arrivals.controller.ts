import { Controller, Get, Query } from '@nestjs/common';
import { maxWithin, SenderArrivals } from '@app/contracts';
import { GraphMessagesService } from './messages.service';

/** Arrival figures per sending number (docs/sandbox.md), for pacing tests and benchmarks. */
@Controller('_sandbox/whatsapp')
export class ArrivalsController {
  constructor(private readonly messages: GraphMessagesService) {}

  @Get('arrivals')
  arrivals(@Query('phone_number_id') phoneNumberId?: string): SenderArrivals[] {
    const bySender = new Map<string, number[]>();
    for (const s of this.messages.list({ phone_number_id: phoneNumberId })) {
      const times = bySender.get(s.phone_number_id) ?? [];
      times.push(s.received_at);
      bySender.set(s.phone_number_id, times);
    }
    return [...bySender].map(([id, times]) => {
      times.sort((a, b) => a - b);
      return {
        phone_number_id: id,
        count: times.length,
        first_at: times[0],
        last_at: times[times.length - 1],
        max_per_second: maxWithin(times, 1000),
      };
    });
  }
}
