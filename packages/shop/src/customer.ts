/**
 * The signed-in customer, shared by every page (decision `customer-accounts`): whether this browser holds a token (kept by
 * the client in localStorage, per store: api.ts), the customer and their saved addresses once read.
 * A 401 to any call that carried the token (expired, revoked, the account erased elsewhere) makes
 * the client forget it, and every page shows the signed-out state.
 */
import type { Customer, CustomerAddress } from '@storefront/client';
import { useEffect, useState } from 'preact/hooks';
import { api, onTokenChange, shopApi } from './api.ts';

export interface CustomerState {
  /** Whether this browser holds a customer token (the header's "Account" link). */
  signedIn: boolean;
  customer: Customer | null;
  /** The saved addresses, the default first; null until read. */
  addresses: CustomerAddress[] | null;
  /** True while the customer is read after signing in or on start. */
  loading: boolean;
  /** Why the last read failed (a network error), when it did. */
  error: unknown;
}

const signedOut = (): CustomerState => ({
  signedIn: false,
  customer: null,
  addresses: null,
  loading: false,
  error: null,
});

class CustomerStore {
  #state: CustomerState = api?.customers.token
    ? { ...signedOut(), signedIn: true, loading: true }
    : signedOut();
  /** Which read is the latest: an answer to an older one (before a sign-out) is dropped. */
  #generation = 0;
  readonly #listeners = new Set<(state: CustomerState) => void>();

  constructor() {
    onTokenChange((token) => {
      this.#generation++;
      if (token === null) this.#set(signedOut());
      else void this.load().catch(() => undefined);
    });
  }

  get state(): CustomerState {
    return this.#state;
  }

  subscribe(listener: (state: CustomerState) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #set(state: CustomerState): void {
    this.#state = state;
    this.#listeners.forEach((listener) => listener(state));
  }

  /** Reads the customer and their addresses (on start, after signing in). */
  async load(): Promise<void> {
    if (!api?.customers.token) {
      this.#set(signedOut());
      return;
    }
    const generation = ++this.#generation;
    this.#set({ ...this.#state, signedIn: true, loading: true, error: null });
    try {
      const [customer, addresses] = await Promise.all([
        shopApi().customers.me(),
        shopApi().customers.addresses.list(),
      ]);
      if (generation === this.#generation)
        this.#set({ signedIn: true, customer, addresses, loading: false, error: null });
    } catch (error) {
      // A 401 signed the customer out already (onTokenChange); anything else is kept to show.
      if (generation === this.#generation && api.customers.token)
        this.#set({ ...this.#state, loading: false, error });
      throw error;
    }
  }

  /** The customer as the service answered a change. */
  setCustomer(customer: Customer): void {
    this.#set({ ...this.#state, customer });
  }

  /** Reads the addresses again after a change (a new default moves the others). */
  async reloadAddresses(): Promise<CustomerAddress[]> {
    const generation = this.#generation;
    const addresses = await shopApi().customers.addresses.list();
    if (generation === this.#generation) this.#set({ ...this.#state, addresses });
    return addresses;
  }

  /** Ends the session on the service; this browser is signed out even when that fails. */
  async signOut(): Promise<void> {
    try {
      await shopApi().customers.signOut();
    } finally {
      shopApi().customers.setToken(null);
    }
  }
}

export const customerStore = new CustomerStore();

export function useCustomer(): CustomerState {
  const [state, setState] = useState(customerStore.state);
  useEffect(() => {
    const unsubscribe = customerStore.subscribe(setState);
    setState(customerStore.state);
    return unsubscribe;
  }, []);
  return state;
}

/** The default saved address (the service lists it first), if any. */
export function defaultAddress(addresses: readonly CustomerAddress[] | null): CustomerAddress | null {
  return addresses?.find((address) => address.isDefault) ?? null;
}
