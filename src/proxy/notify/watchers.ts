/** What listens to a subject: told when it changed. */
export interface Watcher {
  changed(): void;
}

/**
 * In-process fan-out of "this subject changed" to the event streams watching it. Listeners re-read the
 * record themselves (and drop what they already sent by sequence), so a duplicate or coalesced signal
 * is harmless; one listener throwing never keeps the others from hearing. A listener is an object (the
 * stream itself), not a closure: nothing more is kept per stream than the set's entry.
 */
export class Watchers {
  private readonly listeners = new Map<string, Set<Watcher>>();

  /** Listens to changes of `subject` until `unwatch`. */
  watch(subject: string, listener: Watcher): void {
    let set = this.listeners.get(subject);
    if (!set) {
      set = new Set();
      this.listeners.set(subject, set);
    }
    set.add(listener);
  }

  /** Stops `listener` listening to `subject`. */
  unwatch(subject: string, listener: Watcher): void {
    const set = this.listeners.get(subject);
    if (!set) return;
    set.delete(listener);
    if (set.size === 0) this.listeners.delete(subject);
  }

  /** Tells every listener of `subject`. */
  emit(subject: string): void {
    const set = this.listeners.get(subject);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener.changed();
      } catch {
        // A broken stream must not silence the others.
      }
    }
  }

  /** Listeners of `subject` in this process. */
  count(subject: string): number {
    return this.listeners.get(subject)?.size ?? 0;
  }
}
