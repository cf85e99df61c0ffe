/**
 * A bounded set of the most recently seen keys (oldest forgotten first). The stream's replays are at-least-once
 * and bounded by the api's replay limit, so remembering the last few thousand keys is enough to see each once
 * without growing for as long as a terminal stays open.
 */
export class RecentKeys {
  private readonly keys = new Set<string>();

  constructor(private readonly capacity = 5_000) {}

  /** Remembers `key`; answers false when it was already there (a duplicate). */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.values().next().value!);
    return true;
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  get size(): number {
    return this.keys.size;
  }
}
