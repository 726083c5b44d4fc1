import type { ContentDeps } from '../content/content.deps.ts';
import { putMenu } from '../content/menus.service.ts';
import { putPage } from '../content/pages.service.ts';
import { publishRegion, saveRegionDraft } from '../content/regions.service.ts';

/**
 * The demo store's content: a main and a footer menu, two pages, and a published `home-hero`
 * region, so every storefront content read answers something real on a fresh start.
 */
export async function seedDemoContent(
  deps: Pick<ContentDeps, 'db' | 'clock'>,
  storeId: string,
): Promise<void> {
  await putMenu(deps, storeId, 'main', {
    items: [
      { label: 'New Arrivals', url: '/collections/new-arrivals' },
      { label: 'Summer Edit', url: '/collections/summer' },
      { label: 'Under $50', url: '/collections/under-50' },
      { label: 'About', url: '/pages/about' },
    ],
  });
  await putMenu(deps, storeId, 'footer', {
    items: [
      { label: 'Shipping & returns', url: '/pages/shipping-returns' },
      { label: 'About', url: '/pages/about' },
    ],
  });
  await putPage(deps, storeId, 'about', {
    title: 'About us',
    body: 'Demo Store makes durable everyday clothing in small batches.\n\nEvery piece is designed to be worn for years and repaired rather than replaced.',
  });
  await putPage(deps, storeId, 'shipping-returns', {
    title: 'Shipping & returns',
    body: 'Orders ship within two business days.\n\nUnworn items can be returned within 30 days for a full refund.',
  });
  await saveRegionDraft(deps, storeId, 'home-hero', {
    blocks: [
      { id: 'hero-heading', type: 'heading', settings: { text: 'Made to last', level: 1 } },
      {
        id: 'hero-text',
        type: 'text',
        settings: { text: 'New arrivals for the season, built for years of wear.' },
      },
      {
        id: 'hero-columns',
        type: 'columns',
        settings: { columns: 2 },
        children: [
          {
            id: 'hero-shop',
            type: 'button',
            settings: { text: 'Shop new arrivals', href: '/collections/new-arrivals' },
          },
          {
            id: 'hero-summer',
            type: 'button',
            settings: { text: 'Summer edit', href: '/collections/summer' },
          },
        ],
      },
      { id: 'hero-spacer', type: 'spacer', settings: { size: 'md' } },
    ],
  });
  await publishRegion(deps, storeId, 'home-hero');
}
