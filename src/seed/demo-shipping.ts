import type { ServiceDeps } from '../db/service-deps.ts';
import { createMethod, createZone } from '../shipping/shipping.service.ts';
import { changeStoreSettings } from '../stores/stores.service.ts';
import type { MethodBody } from '../shipping/shipping.schemas.ts';

/**
 * The demo store ships from the US: a domestic zone, Europe and the rest of the world, with a method
 * of each kind (decision `shipping-zones-and-methods`), and requires a shipping address at checkout (decision `checkout-with-shipping`).
 */
const ZONES: { name: string; areas: { country: string }[]; methods: MethodBody[] }[] = [
  {
    name: 'United States',
    areas: [{ country: 'US' }],
    methods: [
      {
        name: 'Standard',
        kind: 'free_over',
        amount: 500,
        freeOverAmount: 5000,
        minDeliveryDays: 3,
        maxDeliveryDays: 5,
      },
      { name: 'Express', kind: 'flat', amount: 1500, minDeliveryDays: 1, maxDeliveryDays: 2 },
      {
        name: 'Economy',
        kind: 'weight',
        weightTiers: [
          { upToGrams: 1000, amount: 400 },
          { upToGrams: 5000, amount: 900 },
        ],
        minDeliveryDays: 5,
        maxDeliveryDays: 8,
      },
      { name: 'Pick up at the Brooklyn studio', kind: 'pickup', amount: 0 },
    ],
  },
  {
    name: 'Europe',
    areas: ['AT', 'BE', 'DE', 'DK', 'ES', 'FI', 'FR', 'IE', 'IT', 'NL', 'PT', 'SE'].map((country) => ({
      country,
    })),
    methods: [
      { name: 'International standard', kind: 'flat', amount: 1800, minDeliveryDays: 7, maxDeliveryDays: 12 },
      { name: 'International express', kind: 'flat', amount: 3500, minDeliveryDays: 3, maxDeliveryDays: 5 },
    ],
  },
  {
    name: 'Rest of the world',
    areas: [{ country: '*' }],
    methods: [
      { name: 'International', kind: 'flat', amount: 2900, minDeliveryDays: 10, maxDeliveryDays: 20 },
    ],
  },
];

export async function seedDemoShipping(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
): Promise<void> {
  // Decision `checkout-with-shipping`: the demo store asks every buyer of goods for an address and a method, as a real shop does.
  await changeStoreSettings(deps, storeId, { requireShippingAddress: true });
  for (const zone of ZONES) {
    const created = await createZone(deps, storeId, { name: zone.name, areas: zone.areas });
    for (const method of zone.methods) await createMethod(deps, storeId, created.id, method);
  }
}
