import type { ProductInput } from '../catalog/catalog.schemas.ts';
import { DEMO_REDUCED_CLASS, seedDemoTaxClasses } from './demo-tax.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { createCollection } from '../catalog/collections/collections.service.ts';
import { createProduct } from '../catalog/products/products.service.ts';
import { DEFAULT_MAX_PIXELS } from '../media/media.config.ts';
import { WorkLimiter } from '../media/media.limiter.ts';
import { uploadMedia } from '../media/media.service.ts';
import type { MediaStorage } from '../media/media.storage.ts';
import { demoImage } from './demo-images.ts';

type Item = [title: string, tags: string[], price: number, sizes: string[] | null, description: string];

const ITEMS: Item[] = [
  [
    'Linen Camp Shirt',
    ['shirts', 'summer'],
    5800,
    ['S', 'M', 'L', 'XL'],
    'Breezy washed linen with a relaxed camp collar.',
  ],
  [
    'Oxford Button-Down',
    ['shirts'],
    6900,
    ['S', 'M', 'L', 'XL'],
    'Heavy oxford cloth that softens with every wash.',
  ],
  ['Heavyweight Tee', ['tees', 'basics'], 3200, ['S', 'M', 'L', 'XL'], '240 gsm cotton jersey, cut boxy.'],
  ['Pocket Tee', ['tees', 'basics', 'summer'], 2800, ['S', 'M', 'L'], 'The everyday tee, with a pocket.'],
  [
    'Merino Crew Sweater',
    ['knitwear', 'winter'],
    11800,
    ['S', 'M', 'L', 'XL'],
    'Fine-gauge merino that regulates warmth.',
  ],
  ['Fisherman Cardigan', ['knitwear', 'winter'], 15800, ['M', 'L'], 'Chunky cable knit in undyed wool.'],
  [
    'Selvedge Denim',
    ['trousers'],
    14500,
    ['30', '32', '34', '36'],
    '13.5 oz Japanese selvedge, straight leg.',
  ],
  ['Pleated Chino', ['trousers'], 9800, ['30', '32', '34'], 'Single pleat, tapered, in brushed twill.'],
  ['Drawstring Shorts', ['shorts', 'summer'], 5400, ['S', 'M', 'L'], 'Seersucker shorts for hot afternoons.'],
  [
    'Chore Coat',
    ['outerwear'],
    18900,
    ['S', 'M', 'L', 'XL'],
    'Duck canvas work jacket with three patch pockets.',
  ],
  [
    'Quilted Liner Jacket',
    ['outerwear', 'winter'],
    16500,
    ['M', 'L', 'XL'],
    'Light insulation that layers under a shell.',
  ],
  [
    'Rain Shell',
    ['outerwear'],
    21000,
    ['S', 'M', 'L'],
    'Seam-sealed three-layer shell with a packable hood.',
  ],
  ['Canvas Tote', ['accessories', 'summer'], 3800, null, 'Heavy canvas tote with leather handles.'],
  ['Wool Beanie', ['accessories', 'winter'], 3400, null, 'Ribbed lambswool, one size.'],
  [
    'The Workwear Handbook',
    ['books'],
    6200,
    null,
    'A hardback history of the chore coat, the oxford and the selvedge jean. Taxed at the reduced rate.',
  ],
  ['Crew Socks, 3 Pack', ['accessories', 'basics'], 2400, ['S/M', 'L/XL'], 'Cushioned cotton socks.'],
  ['Suede Desert Boot', ['footwear'], 17500, ['41', '42', '43', '44', '45'], 'Crepe sole and unlined suede.'],
  ['Canvas Sneaker', ['footwear', 'summer'], 8900, ['41', '42', '43', '44'], 'Vulcanised canvas low-top.'],
  ['Sunglasses', ['accessories', 'summer'], 12500, null, 'Acetate frames with polarised lenses.'],
  ['Gift Card', ['gift'], 5000, ['$50', '$100', '$200'], 'Delivered by email. Never expires.'],
];

/** The books of the catalog: taxed at the reduced class where the store's rates have one. */
const REDUCED = new Set(['The Workwear Handbook']);

/**
 * A small, real-looking catalog for the demo store: 20 products (a book taxed at the reduced rate among them), each with a picture drawn here and
 * uploaded as media (decision `media-uploads`), and 3 collections (one smart).
 */
export async function seedDemoCatalog(
  deps: Pick<ServiceDeps, 'db' | 'clock'> & { media: MediaStorage },
  storeId: string,
): Promise<void> {
  // Drawn and uploaded a few at a time (each upload is decoded and encoded again, as any upload is).
  const media = {
    db: deps.db,
    storage: deps.media,
    limiter: new WorkLimiter({ concurrency: 4, queue: ITEMS.length }),
    maxPixels: DEFAULT_MAX_PIXELS,
  };
  const pictures = await Promise.all(
    ITEMS.map(async ([title, tags], index) => {
      const bytes = await media.limiter.run(() => demoImage(index, tags[0] ?? '', title));
      return (await uploadMedia(media, storeId, bytes)).media.id;
    }),
  );
  await seedDemoTaxClasses(deps, storeId);
  const ids: Record<string, string> = {};
  for (const [index, [title, tags, price, sizes, description]] of ITEMS.entries()) {
    const slug = title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    const input: ProductInput = {
      title,
      description,
      status: index === 19 ? 'draft' : 'active',
      images: [{ mediaId: pictures[index]!, alt: title }],
      tags,
      ...(REDUCED.has(title) ? { taxClass: DEMO_REDUCED_CLASS } : {}),
      variants: (sizes ?? ['One size']).map((size, i) => ({
        sku: `${slug.slice(0, 12).toUpperCase()}-${size.replace(/[^A-Za-z0-9]/g, '') || i}`,
        label: size,
        priceAmount: title === 'Gift Card' ? [5000, 10000, 20000][i]! : price,
        compareAtAmount: index % 7 === 3 ? Math.round((price * 1.25) / 100) * 100 : null,
        onHand: (index * 7 + i * 3) % 4 === 0 ? 0 : 3 + ((index + i) % 9),
      })),
    };
    ids[title] = (await createProduct(deps, storeId, input)).id;
  }
  await createCollection(deps, storeId, {
    title: 'New Arrivals',
    slug: 'new-arrivals',
    kind: 'manual',
    productIds: [
      'Chore Coat',
      'Linen Camp Shirt',
      'Selvedge Denim',
      'Suede Desert Boot',
      'Merino Crew Sweater',
    ].map((t) => ids[t]!),
  });
  await createCollection(deps, storeId, {
    title: 'Summer Edit',
    slug: 'summer',
    kind: 'smart',
    rules: { match: 'all', conditions: [{ field: 'tag', op: 'eq', value: 'summer' }] },
  });
  await createCollection(deps, storeId, {
    title: 'Under $50',
    slug: 'under-50',
    kind: 'smart',
    rules: { match: 'all', conditions: [{ field: 'priceAmount', op: 'lt', value: 5000 }] },
  });
}
