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

/**
 * Bytes `offset .. offset + length` of every file the sandbox serves as inbound media: a fixed
 * pattern, so a test can tell that a download matches the channel's file byte for byte.
 */
export function sandboxMediaChunk(offset: number, length: number): Uint8Array {
  const chunk = new Uint8Array(length);
  for (let j = 0; j < length; j++) {
    const i = offset + j;
    chunk[j] = (i * 7 + Math.floor(i / 1021)) & 0xff;
  }
  return chunk;
}
