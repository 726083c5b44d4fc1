import type { OrdersDeps } from '../orders/orders.deps.ts';
import type { TaxServiceDeps } from '../pricing/tax-service.ts';

/** What draft orders work with (decision `draft-orders`): orders' deps, the store's tax service, the pay links' base. */
export interface DraftOrdersDeps extends OrdersDeps {
  taxService: TaxServiceDeps;
  /** Where the service answers browsers (PUBLIC_BASE_URL): the pay link mailed with an invoice starts here. */
  publicBaseUrl: string;
}
