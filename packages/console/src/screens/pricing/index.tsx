/**
 * Discounts, tax and shipping: discount codes, and per-country tax rate and flat shipping (the
 * country's default shipping method; zones and methods are on the Shipping screen).
 */
import { useStaffSession } from '../../data/staff.ts';
import { Notice, PageHeader } from '../../ui/components.tsx';
import '../orders.css';
import { Discounts } from './discounts.tsx';
import { TaxRates } from './tax-rates.tsx';

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
          <TaxRates />
        </>
      )}
    </>
  );
}
