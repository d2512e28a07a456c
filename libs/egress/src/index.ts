export { isPublicAddress } from './public-address';
export { TargetPolicy } from './target-policy';
export type { TargetCheck, TargetPolicyOptions, ResolveAll, ConnectLookup } from './target-policy';
export { readCapped, cappedFetch, AnswerTooLargeError } from './capped-read';
export { fetchTarget, TargetRefusedError } from './target-fetch';
export type { TargetAnswer, TargetFetchOptions } from './target-fetch';
