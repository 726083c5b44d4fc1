/**
 * Discounts, tax and shipping: discount codes, the tax classes, per-country tax rates (by class,
 * with the shipping rule) and flat shipping (the country's default shipping method; zones and
 * methods are on the Shipping screen), and the outside tax service. The tax report is its own screen.
 */
import { useStaffSession } from '../../data/staff.ts';
import { Notice, PageHeader } from '../../ui/components.tsx';
import '../orders.css';
import { Discounts } from './discounts.tsx';
import { TaxClasses } from './tax-classes.tsx';
import { TaxRates } from './tax-rates.tsx';
import { TaxServiceSection } from './tax-service.tsx';

export function Pricing() {
  const session = useStaffSession();
  const role = session.data?.staff.role;
  return (
    <>
      <PageHeader title="Discounts, tax & shipping" />
      {role === 'staff' ? (
        // Pricing is for owners and admins (ADMIN_ACCESS): the API refuses a staff member with 403.
        <Notice tone="warning">
          <p>
            Only owners and admins can manage discounts, tax and shipping. Your role is staff. Ask the store
            owner if you need access.
          </p>
        </Notice>
      ) : (
        <>
          <Discounts />
          <TaxClasses />
          <TaxRates />
          <TaxServiceSection />
        </>
      )}
    </>
  );
}
