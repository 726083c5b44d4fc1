/**
 * The order of deliveries: those of one endpoint and one resource are sent in event order (the
 * relay claims only the oldest pending one of each), those of different resources in parallel.
 */

// Fields that name the resource an event is about, per event type, in order of preference.
const RESOURCE_FIELDS: Record<string, [prefix: string, fields: string[]]> = {
  'order.created': ['order', ['orderId']],
  'order.paid': ['order', ['orderId']],
  'order.refunded': ['order', ['orderId']],
  'inventory.updated': ['variant', ['variantId', 'productId']],
  'product.created': ['product', ['productId']],
  'product.updated': ['product', ['productId']],
  'product.deleted': ['product', ['productId']],
  'content.updated': [
    'content',
    ['collectionId', 'pageId', 'menuId', 'regionId', 'key', 'handle', 'slug', 'id'],
  ],
  'app.installed': ['app', ['appId']],
};

/**
 * The resource an event is about: deliveries of one endpoint and resource are sent in event order.
 * `product.*` → `product:<productId>`, `order.*` → `order:<orderId>`, `inventory.updated` →
 * `variant:<variantId>`, `content.updated` → `content:<kind>:<collectionId|pageId|…|key|handle|slug>`,
 * `app.installed` → `app:<appId>`, `theme.published` → `theme` (one live theme per store, so every
 * publish of a store is ordered). An event without such a field is its own resource (unordered).
 */
export function resourceKeyOf(type: string, data: Record<string, unknown>, eventId: string): string {
  if (type === 'theme.published') return 'theme';
  const rule = RESOURCE_FIELDS[type];
  if (rule) {
    const [prefix, fields] = rule;
    for (const field of fields) {
      const value = data[field];
      if (typeof value === 'string' || typeof value === 'number') {
        const kind = prefix === 'content' && typeof data.kind === 'string' ? `content:${data.kind}` : prefix;
        return `${kind}:${String(value)}`.slice(0, 300);
      }
    }
  }
  return `event:${eventId}`;
}
