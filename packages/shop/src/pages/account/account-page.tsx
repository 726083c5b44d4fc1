/**
 * The account page (decision `customer-accounts`): the orders with their parcels, the profile, saved addresses (the form of
 * the checkout), the customer's data as a JSON download, and erasing the account. Loaded when first
 * shown: the address form carries every country's rules.
 */
import { useState } from 'preact/hooks';
import { customerStore, useCustomer } from '../../customer.ts';
import { Link } from '../../router.tsx';
import { ErrorMessage, Loading, Notice, PageTitle } from '../../ui.tsx';
import { Addresses } from './addresses.tsx';
import { Orders } from './orders.tsx';
import { Profile } from './profile.tsx';
import { YourData } from './your-data.tsx';

/** After signing out here: the page's heading takes the focus (the button pressed is gone). */
function focusHeading() {
  window.requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

export function AccountPage() {
  const session = useCustomer();
  /** What to say once signed out here (signed out, or the account erased). */
  const [farewell, setFarewell] = useState<string | null>(null);

  if (!session.signedIn) {
    return (
      <section class="account">
        <PageTitle title="Your account">Your account</PageTitle>
        {farewell ? (
          <Notice tone="success">
            <p>{farewell}</p>
          </Notice>
        ) : (
          <p>You are not signed in.</p>
        )}
        <p>
          <Link to="/account/sign-in" class="button-primary">
            Sign in
          </Link>
        </p>
      </section>
    );
  }
  if (!session.customer) {
    return session.error ? (
      <ErrorMessage error={session.error} onRetry={() => void customerStore.load().catch(() => undefined)} />
    ) : (
      <Loading label="Loading your account…" />
    );
  }
  const { customer } = session;
  return (
    <section class="account">
      <PageTitle title="Your account">Your account</PageTitle>
      <p class="account-intro">
        Signed in as <strong>{customer.email}</strong>.{' '}
        <button
          type="button"
          class="button-link"
          onClick={() => {
            setFarewell('You are signed out.');
            void customerStore
              .signOut()
              .catch(() => undefined)
              .then(focusHeading);
          }}
        >
          Sign out
        </button>
      </p>
      <nav aria-label="Account sections" class="account-sections">
        <ul>
          <li>
            <a href="#orders-title">Orders</a>
          </li>
          <li>
            <a href="#profile-title">Profile</a>
          </li>
          <li>
            <a href="#addresses-title">Addresses</a>
          </li>
          <li>
            <a href="#data-title">Your data</a>
          </li>
        </ul>
      </nav>
      <Orders customerId={customer.id} />
      <Profile />
      <Addresses addresses={session.addresses ?? []} />
      <YourData
        onErased={() => {
          setFarewell('Your account was deleted. Thank you for shopping with us.');
          focusHeading();
        }}
      />
    </section>
  );
}
