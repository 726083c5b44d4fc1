/**
 * Products: the list (list.tsx: search by title or SKU, filters by status, collection and stock,
 * the order, all in the address; cursor pages) and the product form (form.tsx, create at
 * /products/new, edit at /products/:id, with its variants in variants.tsx and the draft's checks
 * and API bodies in draft.ts). Their data is data/products.ts.
 */
import '../catalog.css';

export { ProductsList } from './list.tsx';
export { ProductEdit } from './form.tsx';
