import { rateLimitHeaders } from './token-rate-limit';

describe('RateLimit fields', () => {
  it('remaining is the whole tokens left; t is when the bucket is full again', () => {
    expect(rateLimitHeaders({ allowed: true, tokens: 99 }, 100, 100)).toEqual({
      'RateLimit-Policy': '"default";q=100;w=1',
      RateLimit: '"default";r=99;t=1',
    });
    expect(rateLimitHeaders({ allowed: true, tokens: 100 }, 100, 100).RateLimit).toBe('"default";r=100;t=0');
  });

  it('refused: r=0 and t is when the next request fits', () => {
    expect(rateLimitHeaders({ allowed: false, tokens: 0.2 }, 0.5 as number, 10).RateLimit).toBe('"default";r=0;t=2');
  });
});
