import type { AdminProduct } from '../catalog/catalog.schemas.ts';
import { listProducts } from '../catalog/products/products.service.ts';
import { listCustomers } from '../customers/admin-customers.service.ts';
import { defaultAddresses } from '../customers/customer-import.service.ts';
import { withFreshBound } from '../db/bounds.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { minorToDecimal, type Money } from '../lib/money.ts';
import { currencyDigits } from '../markets/currencies.ts';
import { listMarkets } from '../markets/markets.service.ts';
import { listOrders } from '../orders/orders.service.ts';
import { storeCurrency } from '../stores/stores.service.ts';
import { CUSTOMER_COLUMNS } from './customers.kind.ts';
import { COLUMNS, compareAtColumn, EXPORT_COLUMNS, priceColumn } from './shopify-columns.ts';

/**
 * CSV out (decision `csv-exports`): each export is rows produced a page at a time (100 records)
 * from the same services the Admin API reads through, so memory holds one page whatever the
 * store's size; the route streams them as CSV. Products are Shopify's product CSV, which the
 * products import reads back to the same catalog; customers Shopify's customer CSV; orders one row
 * per line with the order's figures on each.
 */

export type ExportKind = 'products' | 'orders' | 'customers';
type Row = readonly (string | number)[];
const PAGE = 100;

export type ExportDeps = Pick<ServiceDeps, 'db' | 'cursors' | 'clock'> & { publicBaseUrl: string };

export function exportRows(deps: ExportDeps, storeId: string, kind: ExportKind): AsyncGenerator<Row> {
  switch (kind) {
    case 'products':
      return productRows(deps, storeId);
    case 'orders':
      return orderRows(deps, storeId);
    case 'customers':
      return customerRows(deps, storeId);
  }
}

const bool = (value: boolean) => (value ? 'TRUE' : 'FALSE');
const amount = (value: number | null, currency: string) =>
  value === null ? '' : minorToDecimal(value, currencyDigits(currency) ?? 2);
const money = (value: Money) => amount(value.amount, value.currency);

async function* productRows(deps: ExportDeps, storeId: string): AsyncGenerator<Row> {
  const currency = await storeCurrency(deps, storeId);
  const others = [...new Set((await listMarkets(deps, storeId)).map((market) => market.currency))]
    .filter((code) => code !== currency)
    .sort();
  const header = [...EXPORT_COLUMNS, ...others.flatMap((code) => [priceColumn(code), compareAtColumn(code)])];
  yield header;
  const index = new Map(header.map((name, i) => [name, i]));
  let cursor: string | undefined;
  do {
    const page = await withFreshBound(() =>
      listProducts(deps, storeId, { limit: PAGE, ...(cursor ? { cursor } : {}) }),
    );
    for (const product of page.items)
      yield* rowsOfProduct(product, currency, others, index, deps.publicBaseUrl);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/** A product's rows: its fields on the first, a variant per row, its images by position down the rows. */
function rowsOfProduct(
  product: AdminProduct,
  currency: string,
  others: readonly string[],
  index: ReadonlyMap<string, number>,
  baseUrl: string,
): Row[] {
  const variants = product.variants.filter((variant) => !variant.archived);
  const imageUrl = (id: string | null) => {
    const image = id === null ? undefined : product.images.find((candidate) => candidate.id === id);
    return image ? `${baseUrl}${image.url}` : '';
  };
  const rows: string[][] = [];
  const count = Math.max(1, variants.length, product.images.length);
  for (let i = 0; i < count; i++) {
    const row = new Array<string>(index.size).fill('');
    const set = (column: string, value: string | number) => (row[index.get(column)!] = String(value));
    set(COLUMNS.handle, product.handle);
    if (i === 0) {
      set(COLUMNS.title, product.title);
      set(COLUMNS.body, product.description);
      set(COLUMNS.tags, product.tags.join(', '));
      set(COLUMNS.published, bool(product.status === 'active'));
      set(COLUMNS.status, product.status);
      set(COLUMNS.giftCard, bool(product.giftCard));
      set(COLUMNS.seoTitle, product.seo.title ?? '');
      set(COLUMNS.seoDescription, product.seo.description ?? '');
      set(COLUMNS.taxClass, product.taxClass);
      if (product.options.length === 0) set(COLUMNS.optionName(1), 'Title');
      product.options.forEach((option, n) => {
        set(COLUMNS.optionName(n + 1), option.name);
        set(COLUMNS.optionValues(n + 1), JSON.stringify(option.values));
      });
    }
    const variant = variants[i];
    if (variant) {
      if (product.options.length === 0) set(COLUMNS.optionValue(1), variant.label);
      product.options.forEach((option, n) =>
        set(COLUMNS.optionValue(n + 1), variant.options[option.name] ?? ''),
      );
      set(COLUMNS.label, variant.label);
      set(COLUMNS.sku, variant.sku ?? '');
      set(COLUMNS.grams, variant.weightGrams ?? '');
      set(COLUMNS.inventory, variant.onHand);
      set(COLUMNS.price, amount(variant.priceAmount, currency));
      set(COLUMNS.compareAt, amount(variant.compareAtAmount, currency));
      set(COLUMNS.requiresShipping, bool(variant.requiresShipping));
      set(COLUMNS.taxable, bool((variant.taxClass ?? product.taxClass) !== 'exempt'));
      set(COLUMNS.taxCode, variant.taxClass ?? '');
      set(COLUMNS.variantImage, imageUrl(variant.imageId));
      for (const code of others) {
        const price = variant.prices.find((candidate) => candidate.currency === code);
        if (!price) continue;
        set(priceColumn(code), amount(price.amount, code));
        set(compareAtColumn(code), amount(price.compareAtAmount, code));
      }
    }
    const image = product.images[i];
    if (image) {
      set(COLUMNS.imageSrc, `${baseUrl}${image.url}`);
      set(COLUMNS.imagePosition, i + 1);
      set(COLUMNS.imageAlt, image.alt ?? '');
    }
    rows.push(row);
  }
  return rows;
}

export const ORDER_COLUMNS = [
  'Order',
  'Order ID',
  'Created At',
  'Paid At',
  'Status',
  'Fulfillment Status',
  'Email',
  'Currency',
  'Subtotal',
  'Discount',
  'Discount Codes',
  'Shipping',
  'Taxes',
  'Taxes Included',
  'Total',
  'Refunded',
  'Shipping Name',
  'Shipping Country',
  'Shipping Region',
  'Shipping City',
  'Shipping Zip',
  'Lineitem name',
  'Lineitem variant',
  'Lineitem sku',
  'Lineitem quantity',
  'Lineitem price',
  'Lineitem total',
  'Lineitem discount',
  'Lineitem tax',
  'Lineitem tax rate',
  'Lineitem tax class',
] as const;

async function* orderRows(deps: ExportDeps, storeId: string): AsyncGenerator<Row> {
  yield ORDER_COLUMNS;
  let cursor: string | undefined;
  do {
    const page = await withFreshBound(() =>
      listOrders(deps, storeId, { limit: PAGE, ...(cursor ? { cursor } : {}) }),
    );
    for (const order of page.items) {
      const address = order.shippingAddress;
      const codes = order.promotions.flatMap((promotion) => (promotion.code ? [promotion.code] : []));
      for (const line of order.lines)
        yield [
          `#${order.number}`,
          order.id,
          order.createdAt,
          order.paidAt ?? '',
          order.status,
          order.fulfillmentStatus,
          order.email,
          order.total.currency,
          money(order.subtotal),
          money(order.discount),
          codes.join(', '),
          money(order.shipping),
          money(order.tax),
          bool(order.taxIncluded),
          money(order.total),
          money(order.refunded),
          address?.name ?? '',
          address?.country ?? '',
          address?.region ?? '',
          address?.city ?? '',
          address?.postalCode ?? '',
          line.title,
          line.variantLabel,
          line.sku ?? '',
          line.quantity,
          money(line.unitPrice),
          money(line.lineTotal),
          line.discount ? money(line.discount) : '',
          line.tax ? amount(line.tax.amount, order.total.currency) : '',
          line.tax ? (line.tax.rateBps / 100).toFixed(2) : '',
          line.tax?.class ?? '',
        ];
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

const CUSTOMER_EXPORT = [
  CUSTOMER_COLUMNS.firstName,
  CUSTOMER_COLUMNS.lastName,
  CUSTOMER_COLUMNS.email,
  CUSTOMER_COLUMNS.acceptsMarketing,
  CUSTOMER_COLUMNS.company,
  CUSTOMER_COLUMNS.address1,
  CUSTOMER_COLUMNS.address2,
  CUSTOMER_COLUMNS.city,
  CUSTOMER_COLUMNS.province,
  CUSTOMER_COLUMNS.country,
  CUSTOMER_COLUMNS.zip,
  CUSTOMER_COLUMNS.addressPhone,
  CUSTOMER_COLUMNS.phone,
  'Total Orders',
] as const;

async function* customerRows(deps: ExportDeps, storeId: string): AsyncGenerator<Row> {
  yield CUSTOMER_EXPORT;
  let cursor: string | undefined;
  do {
    const { page, addresses } = await withFreshBound(async () => {
      const found = await listCustomers(deps, storeId, { limit: PAGE, ...(cursor ? { cursor } : {}) });
      const ids = found.items.map((customer) => customer.id);
      return { page: found, addresses: await defaultAddresses(deps, storeId, ids) };
    });
    for (const customer of page.items) {
      const address = addresses.get(customer.id);
      // The whole name goes in First Name: a name is not split where a person would not split it.
      yield [
        customer.name ?? '',
        '',
        customer.email,
        bool(customer.acceptsMarketing),
        address?.company ?? '',
        address?.line1 ?? '',
        address?.line2 ?? '',
        address?.city ?? '',
        address?.region ? address.region.replace(/^[A-Z]{2}-/, '') : '',
        address?.country ?? '',
        address?.postalCode ?? '',
        address?.phone ?? '',
        customer.phone ?? '',
        customer.ordersCount,
      ];
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
