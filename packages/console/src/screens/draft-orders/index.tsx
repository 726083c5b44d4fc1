/**
 * Draft orders (docs/draft-orders.md, decision `draft-orders`): the list (list.tsx) and a draft's
 * page (editor.tsx: a new draft, or an open one changed section by section, priced by the server
 * after each change; invoice, mark as paid, delete in actions.tsx). Loaded on demand by app.tsx.
 */
import '../orders.css';
import './draft-orders.css';

export { DraftOrdersList } from './list.tsx';
export { DraftOrderPage, NewDraftOrder } from './editor.tsx';
