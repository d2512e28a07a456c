export { RateLimitModule } from './rate-limit.module';
export { RateLimitGuard } from './rate-limit.guard';
