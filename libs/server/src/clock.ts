import { Injectable } from '@nestjs/common';

/** The time decisions are made at (injected: specs move it). */
@Injectable()
export class Clock {
  nowMs(): number {
    return Date.now();
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** Unix seconds, as events and timelines carry them. */
  nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }
}
