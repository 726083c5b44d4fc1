/**
 * Step 1: contact (email, phone) and the shipping address, a saved one or a new one; for a cart of
 * gift cards only, the contact alone (their codes go to the email, nothing is shipped).
 */
import type { CustomerAddress } from '@storefront/client';
import {
  AddressFields,
  addressSummary,
  draftOf,
  emptyAddress,
  type AddressDraft,
  type AddressField,
} from '../../address-form.tsx';
import { Link } from '../../router.tsx';
import { TextField } from '../../text-field.tsx';
import type { FieldProblems } from './use-checkout-steps.ts';

/** The saved address the form holds, if it holds one exactly (the picker shows it chosen). */
function savedAddressMatching(addresses: readonly CustomerAddress[], draft: AddressDraft): string {
  const same = (a: AddressDraft) =>
    (Object.keys(a) as AddressField[]).every((field) => a[field] === draft[field]);
  return addresses.find((saved) => same(draftOf(saved)))?.id ?? '';
}

export function DetailsStep(props: {
  email: string;
  phone: string;
  address: AddressDraft;
  fields: FieldProblems;
  sending: boolean;
  signedIn: boolean;
  savedAddresses: readonly CustomerAddress[];
  giftCardsOnly: boolean;
  onEmail: (value: string) => void;
  onPhone: (value: string) => void;
  onAddress: (next: AddressDraft) => void;
  onPickAddress: (next: AddressDraft) => void;
  onSubmit: (event: Event) => Promise<void>;
}) {
  const { address, fields, signedIn, savedAddresses: saved } = props;
  return (
    <form onSubmit={(event) => void props.onSubmit(event)} noValidate>
      <fieldset>
        <legend>Contact</legend>
        {signedIn ? null : (
          <p class="sign-in-hint">
            Have an account?{' '}
            <Link to={`/account/sign-in?next=${encodeURIComponent('/checkout')}`}>Sign in</Link> to use your
            saved addresses.
          </p>
        )}
        <TextField
          id="checkout-email"
          label="Email"
          type="email"
          autoComplete="email"
          value={props.email}
          readOnly={signedIn}
          onInput={props.onEmail}
          problem={fields.email}
          hint={
            signedIn
              ? 'You are signed in: the order is saved in your account.'
              : props.giftCardsOnly
                ? 'For the order confirmation and your gift card codes.'
                : 'For the order confirmation.'
          }
        />
        <TextField
          id="checkout-phone"
          label="Phone (optional)"
          type="tel"
          autoComplete="tel"
          value={props.phone}
          onInput={props.onPhone}
          problem={fields.phone}
          hint={
            props.giftCardsOnly
              ? 'If the shop needs to reach you.'
              : 'For the carrier, if they need to reach you.'
          }
        />
      </fieldset>
      {props.giftCardsOnly ? (
        <p class="gift-card-note">
          Gift cards are delivered by email — no shipping, so no address is needed.
        </p>
      ) : (
        <fieldset>
          <legend>Shipping address</legend>
          {saved.length > 0 ? (
            <div class="field">
              <label for="checkout-saved-address">Saved addresses</label>
              <select
                id="checkout-saved-address"
                value={savedAddressMatching(saved, address)}
                onChange={(event) => {
                  const chosen = saved.find((entry) => entry.id === event.currentTarget.value);
                  props.onPickAddress(chosen ? draftOf(chosen) : emptyAddress(address.country));
                }}
              >
                {saved.map((entry) => (
                  <option key={entry.id} value={entry.id}>
                    {addressSummary(entry)}
                    {entry.isDefault ? ' (default)' : ''}
                  </option>
                ))}
                <option value="">A new address</option>
              </select>
            </div>
          ) : null}
          <AddressFields value={address} onChange={props.onAddress} problems={fields} idPrefix="ship" />
        </fieldset>
      )}
      <button type="submit" class="button-primary" disabled={props.sending}>
        {props.sending ? 'Saving…' : props.giftCardsOnly ? 'Continue to review' : 'Continue to shipping'}
      </button>
    </form>
  );
}
