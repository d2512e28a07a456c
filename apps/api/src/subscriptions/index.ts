export { SubscriptionsModule } from './subscriptions.module';
