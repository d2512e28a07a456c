/**
 * The most recent records of one kind, at most `max` of them, with the count of every record ever
 * made kept whole: the sandbox runs for hours under load with the services' heap, so what it keeps
 * must not grow with what it has seen (SANDBOX_RECORDS_MAX).
 */
export class RecordWindow<T> {
  private records: T[] = [];
  private made = 0;

  constructor(private readonly max: number) {}

  push(record: T): void {
    this.made++;
    this.records.push(record);
    // Dropping the oldest a few at a time would move the whole array each time: drop a quarter at once.
    if (this.records.length > this.max + Math.ceil(this.max / 4)) this.records = this.records.slice(-this.max);
  }

  /** The records kept, oldest first. */
  kept(): T[] {
    return this.records.length > this.max ? this.records.slice(-this.max) : [...this.records];
  }

  /** The kept records that match, oldest first. */
  filter(match: (record: T) => boolean): T[] {
    return this.kept().filter(match);
  }

  /** How many were ever recorded (since the last clear) and how many are kept. */
  counts(): { total: number; kept: number } {
    return { total: this.made, kept: Math.min(this.records.length, this.max) };
  }

  clear(): void {
    this.records = [];
    this.made = 0;
  }
}
