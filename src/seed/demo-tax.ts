import type { ServiceDeps } from '../db/service-deps.ts';
import { AppError } from '../lib/errors.ts';
import { setTaxRate } from '../pricing/pricing.service.ts';
import { createTaxClass } from '../pricing/tax-classes.service.ts';

/** The demo store's reduced class: its book is taxed at it where the rates say so. */
export const DEMO_REDUCED_CLASS = 'reduced';

/**
 * The demo store taxes Europe the EU way (decisions `tax-classes` and `shipping-tax`): a standard and
 * a reduced rate in Germany, France and the Netherlands, shipping following the goods. The US stays
 * untaxed, as it always was in the demo. Prices stay exclusive of tax; a developer switches on
 * "Prices include tax" in the console's settings to see the EU-style inclusive till.
 */
const RATES: { country: string; standard: number; reduced: number }[] = [
  { country: 'DE', standard: 1900, reduced: 700 },
  { country: 'FR', standard: 2000, reduced: 550 },
  { country: 'NL', standard: 2100, reduced: 900 },
];

/** The demo's tax classes, made once (the catalog's book names `reduced`). */
export async function seedDemoTaxClasses(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
): Promise<void> {
  try {
    await createTaxClass(deps, storeId, { code: DEMO_REDUCED_CLASS, name: 'Reduced (books)' });
  } catch (error) {
    if (!(error instanceof AppError && error.title === 'tax_class_exists')) throw error;
  }
}

export async function seedDemoTax(deps: Pick<ServiceDeps, 'db' | 'clock'>, storeId: string): Promise<void> {
  await seedDemoTaxClasses(deps, storeId);
  for (const rate of RATES)
    await setTaxRate(deps, storeId, rate.country, {
      taxRateBps: rate.standard,
      classRates: { [DEMO_REDUCED_CLASS]: rate.reduced },
      shippingTax: 'follow_goods',
    });
}
