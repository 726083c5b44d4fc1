/**
 * Collections: the list (list.tsx) and the form (form.tsx: create at /collections/new, edit at
 * /collections/:id). Manual collections hold products in the merchant's order (manual.tsx: drag,
 * keyboard or Move up / Move down, add by search); smart collections pick products by rules
 * (smart.tsx, rules.ts), with a live preview of what the rules match now (the same rule engine the
 * collection uses, POST /admin/v1/collections/preview). Their data is data/collections.ts.
 */
import '../catalog.css';

export { CollectionsList } from './list.tsx';
export { CollectionEdit } from './form.tsx';
