/**
 * Customers: the list (list.tsx: search by email or name, accounts or guests, "Load more"), one
 * customer (detail.tsx: profile, addresses, orders, totals, the data export and the erasure with its
 * confirmation in erase.tsx) and the privacy log (privacy-log.tsx: who exported or erased whose
 * data). Their data is data/customers.ts.
 */
import '../orders.css';
import './customers.css';

export { CustomersList } from './list.tsx';
export { CustomerDetail } from './detail.tsx';
export { PrivacyLog } from './privacy-log.tsx';
