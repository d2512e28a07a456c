/** How one business number's accepted sends arrived at the sandbox: enough to check a sender's pacing. */
export interface SenderArrivals {
  phone_number_id: string;
  count: number;
  /** Unix ms of the first and last accepted send. */
  first_at: number;
  last_at: number;
  /** The most accepted sends within any one second. */
  max_per_second: number;
}

/** The most of `sorted` (ascending unix ms) that fall within any window of `windowMs`. */
export function maxWithin(sorted: number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
