/**
 * In-process fan-out of "this subject changed" to the event streams watching it. Listeners re-read the
 * record themselves (and drop what they already sent by sequence), so a duplicate or coalesced signal
 * is harmless; one listener throwing never keeps the others from hearing.
 */
export class Watchers {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** Listens to changes of `subject`; returns the function that stops listening. */
  watch(subject: string, listener: () => void): () => void {
    let set = this.listeners.get(subject);
    if (!set) {
      set = new Set();
      this.listeners.set(subject, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(subject);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(subject);
    };
  }

  /** Tells every listener of `subject`. */
  emit(subject: string): void {
    const set = this.listeners.get(subject);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener();
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
