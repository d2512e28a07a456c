export { RateLimitRepository, BucketState } from './rate-limit.repository';
export { RateLimitBucketEntity } from './rate-limit-bucket.entity';
export { rateLimitHeaders, takeRequest, limitAuthenticatedRequest } from './token-rate-limit';
export type { Buckets } from './token-rate-limit';
export { LocalBuckets } from './local-buckets';
