/** A set that keeps its newest `max` members: adding one past that forgets the oldest. */
export class RecentSet<T> {
  private readonly members = new Set<T>();

  constructor(private readonly max: number) {}

  has(member: T): boolean {
    return this.members.has(member);
  }

  add(member: T): void {
    this.members.add(member);
    if (this.members.size > this.max) this.members.delete(this.members.values().next().value as T);
  }
}
