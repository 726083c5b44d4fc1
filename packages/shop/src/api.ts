/** The shop's one client of the Storefront API (a publishable key, exactly as a shop on another origin would use it). */
import {
  createStorefrontClient,
  StorefrontError,
  StorefrontNetworkError,
  type StorefrontClient,
} from '@storefront/client';
import { readConfig } from './config.ts';

export const config = readConfig();

/**
 * Where the signed-in customer's token (`ct_…`) is kept: localStorage, one entry per store (by its
 * publishable key), so a token never goes to another store's shop on the same origin.
 */
export const TOKEN_KEY = `storefront.customer.${config.publishableKey ?? ''}`;

function storedToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

const tokenListeners = new Set<(token: string | null) => void>();

/** Called when the customer signs in or out (here, in another tab, or when the service ended the session). */
export function onTokenChange(listener: (token: string | null) => void): () => void {
  tokenListeners.add(listener);
  return () => void tokenListeners.delete(listener);
}

export const api: StorefrontClient | null = config.publishableKey
  ? createStorefrontClient({
      baseUrl: config.apiBaseUrl,
      publishableKey: config.publishableKey,
      customerToken: storedToken(),
      onCustomerTokenChange(token) {
        try {
          if (token) window.localStorage.setItem(TOKEN_KEY, token);
          else window.localStorage.removeItem(TOKEN_KEY);
        } catch {
          // Storage refused (private mode): signed in as long as the page lasts.
        }
        tokenListeners.forEach((listener) => listener(token));
      },
    })
  : null;

if (api) {
  // Signed in or out in another tab: this one follows.
  window.addEventListener('storage', (event) => {
    if (event.key === TOKEN_KEY) api.customers.setToken(event.newValue);
  });
}

/** The client, where a page needs it (the app shows a set-up page instead of any page when there is no key). */
export function shopApi(): StorefrontClient {
  if (!api) throw new Error('No publishable key is configured.');
  return api;
}

export function isStatus(error: unknown, status: number): error is StorefrontError {
  return error instanceof StorefrontError && error.status === status;
}

/** A sentence for a shopper from any error: the service's own detail when it gave one. */
export function describeError(error: unknown): string {
  if (error instanceof StorefrontNetworkError) {
    return 'The shop cannot be reached. Check your connection and try again.';
  }
  if (error instanceof StorefrontError) {
    if (error.status === 429) return 'Too many requests just now. Wait a moment and try again.';
    if (error.status >= 500) return 'Something went wrong on our side. Try again in a moment.';
    return error.detail || error.title;
  }
  return 'Something went wrong. Try again.';
}
