/** An entry of a DeadlineQueue: `done` once it no longer needs its deadline. */
export interface Deadlined {
  readonly deadline: number;
  readonly done: boolean;
}

/**
 * Many deadlines behind one timer: a binary min-heap on `deadline`, with the process's single timer
 * set for the earliest. Thousands of held requests cost one timer, not one each (a held request
 * costs its connection, not a timer of its own: docs/capacity.md#held-connections-long-poll). An
 * entry answered early is not searched for: it is marked `done` and skipped when it comes up; the
 * heap is rebuilt without such entries when they outnumber the live ones.
 */
export class DeadlineQueue<T extends Deadlined> {
  private heap: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly expire: (entry: T) => void,
    private readonly now: () => number = Date.now,
  ) {}

  add(entry: T): void {
    const heap = this.heap;
    heap.push(entry);
    this.up(heap.length - 1);
    this.arm();
  }

  /** Entries in the heap, done ones not yet dropped included. */
  get length(): number {
    return this.heap.length;
  }

  /** Drops done entries when they are more than half the heap. `live`: entries not done. */
  compact(live: number): void {
    if (this.heap.length < 64 || this.heap.length < live * 2) return;
    const kept = this.heap.filter((entry) => !entry.done);
    this.heap = [];
    for (const entry of kept) {
      this.heap.push(entry);
      this.up(this.heap.length - 1);
    }
    this.arm();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.heap = [];
  }

  private arm(): void {
    while (this.heap[0]?.done === true) this.pop();
    const first = this.heap[0];
    const at = first?.deadline ?? Infinity;
    if (at === this.timerAt) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = at;
    if (first === undefined) return;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - this.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    for (let first = this.heap[0]; first !== undefined && first.deadline <= now; first = this.heap[0]) {
      this.pop();
      if (!first.done) this.expire(first);
    }
    this.arm();
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    heap[0] = last;
    this.down(0);
  }

  private up(index: number): void {
    const heap = this.heap;
    const entry = heap[index] as T;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex] as T;
      if (parent.deadline <= entry.deadline) break;
      heap[index] = parent;
      index = parentIndex;
    }
    heap[index] = entry;
  }

  private down(index: number): void {
    const heap = this.heap;
    const entry = heap[index] as T;
    for (;;) {
      let child = index * 2 + 1;
      if (child >= heap.length) break;
      const right = child + 1;
      if (right < heap.length && (heap[right] as T).deadline < (heap[child] as T).deadline) child = right;
      const smaller = heap[child] as T;
      if (smaller.deadline >= entry.deadline) break;
      heap[index] = smaller;
      index = child;
    }
    heap[index] = entry;
  }
}
