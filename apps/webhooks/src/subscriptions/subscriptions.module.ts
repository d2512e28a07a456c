import { Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module';
import { SubscriptionsRpcController } from './subscriptions.controller';
import { SubscriptionStoreService } from './subscriptions.service';

/** Subscriptions, served to the api over request/reply. */
@Module({
  imports: [DeliveryModule],
  controllers: [SubscriptionsRpcController],
  providers: [SubscriptionStoreService],
})
export class SubscriptionStoreModule {}
