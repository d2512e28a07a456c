export { RateLimitModule } from './rate-limit.module';
export { RateLimitGuard, rateLimitHeaders } from './rate-limit.guard';
