/**
 * The units of each variant that this process's checkouts are reserving right now: from a stock
 * pre-check that passed to the end of its transaction. A hint for the pre-check only (decision `checkout-after-a-crash`): the
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
  /** Ends the current waits without draining (the variant sold out). */
  wake: () => void;
  waiters: Set<() => void>;
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
          const done = (): void => {
            clearTimeout(timer);
            held.waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, maxWaitMs);
          timer.unref();
          held.waiters.add(done);
          void held.drained.then(done);
        });
      }
    }
    return null;
  }

  /**
   * Holds the lines' units until the returned release is called (once). A checkout that committed
   * passes what its reservation left available per variant: when nothing is left, the checkouts
   * waiting for that variant go on at once (their pre-check now fails) instead of waiting for
   * every holder to finish.
   */
  hold(storeId: string, lines: readonly GatedLine[]): (left?: ReadonlyMap<string, number>) => void {
    const keys = lines.map((line) => {
      const key = `${storeId}:${line.variantId}`;
      let held = this.#held.get(key);
      if (!held) {
        let resolve = (): void => undefined;
        const drained = new Promise<void>((r) => (resolve = r));
        const waiters = new Set<() => void>();
        const wake = (): void => {
          for (const waiter of [...waiters]) waiter();
        };
        held = { units: 0, drained, resolve, wake, waiters };
        this.#held.set(key, held);
      }
      held.units += line.quantity;
      return { key, variantId: line.variantId, held, units: line.quantity };
    });
    let released = false;
    return (left) => {
      if (released) return;
      released = true;
      for (const { key, variantId, held, units } of keys) {
        held.units -= units;
        if (held.units <= 0) {
          this.#held.delete(key);
          held.resolve();
        } else if (left?.get(variantId) === 0) {
          held.wake();
        }
      }
    };
  }

  /** Variants with units held now (tests). */
  get size(): number {
    return this.#held.size;
  }
}
