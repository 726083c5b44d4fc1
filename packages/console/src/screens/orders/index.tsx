/**
 * Orders: the list (list.tsx) and one order (detail.tsx, with its shipments, returns, refunds,
 * cancellation and timeline in their own files). Loaded on demand by app.tsx.
 */
import '../orders.css';

export { OrdersList } from './list.tsx';
export { OrderDetail } from './detail.tsx';
