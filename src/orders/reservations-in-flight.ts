/**
 * The units of each variant that this process's checkouts are reserving right now: from a stock
 * pre-check that passed to the end of its transaction. A hint for the pre-check only (D25): the
 * conditional reservation in the database still decides, across every process.
 *
 * When many buyers want the last units of a variant at once, they all pass a pre-check that reads
 * committed stock only, create payment intents, queue on the variant's row lock, and most of them
 * fail there, then cancel their intents. With this, a checkout whose line would need units that
 * are already being reserved here waits until those checkouts have finished and checks again:
 * once the last units are sold it is refused by the pre-check, before any provider call or
 * transaction. It never refuses on its own; at worst it delays a checkout by `maxWaitMs`.
 */
export interface GatedLine {
  variantId: string;
  quantity: number;
  /** Units available when the pre-check read them (committed reservations only). */
  available: number;
}

interface Held {
  units: number;
  /** Resolved when no unit of the variant is held any more. */
  drained: Promise<void>;
  resolve: () => void;
}

export class ReservationsInFlight {
  readonly #held = new Map<string, Held>();

  /**
   * Null when every line fits beside what is being reserved; otherwise a promise that resolves
   * when the checkouts holding one of those variants have all finished, or after `maxWaitMs`.
   */
  waitIfShort(storeId: string, lines: readonly GatedLine[], maxWaitMs: number): Promise<void> | null {
    for (const line of lines) {
      const held = this.#held.get(`${storeId}:${line.variantId}`);
      if (held && line.available - held.units < line.quantity) {
        return new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, maxWaitMs);
          timer.unref();
          void held.drained.then(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    }
    return null;
  }

  /** Holds the lines' units until the returned release is called (once). */
  hold(storeId: string, lines: readonly GatedLine[]): () => void {
    const keys = lines.map((line) => {
      const key = `${storeId}:${line.variantId}`;
      let held = this.#held.get(key);
      if (!held) {
        let resolve = (): void => undefined;
        const drained = new Promise<void>((r) => (resolve = r));
        held = { units: 0, drained, resolve };
        this.#held.set(key, held);
      }
      held.units += line.quantity;
      return { key, held, units: line.quantity };
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const { key, held, units } of keys) {
        held.units -= units;
        if (held.units <= 0) {
          this.#held.delete(key);
          held.resolve();
        }
      }
    };
  }

  /** Variants with units held now (tests). */
  get size(): number {
    return this.#held.size;
  }
}
