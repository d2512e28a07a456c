import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { EventsModule } from '../events/events.module';
import { OutboxModule } from '../outbox';
import { AddressKeys } from './address-keys';
import { ConsentRpcController } from './consent.rpc.controller';
import { ConsentRepository } from './consent.repository';
import { ConsentService } from './consent.service';
import { ConsentSignalsService } from './consent-signals.service';

/** Consent per business and channel address: the send path's check, its changes, history and events. */
@Module({
  imports: [EventsModule, OutboxModule],
  controllers: [ConsentRpcController],
  providers: [Clock, AddressKeys, ConsentRepository, ConsentService, ConsentSignalsService],
  exports: [ConsentService],
})
export class ConsentModule {}
