/**
 * A customer's groups (decision `customer-groups`): a checkbox per group of the store, saved at once
 * with `PUT /customers/{id}/groups` (the ticked ones replace the customer's). Price lists limited to
 * a group price its members, signed in to the shop. Staff see the groups, owners and admins change
 * them.
 */
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useCustomerGroups, useSetCustomerGroups } from '../../data/customer-groups.ts';
import type { CustomerDetail } from '../../data/customers.ts';
import { useStaffSession } from '../../data/staff.ts';
import { ErrorBanner } from '../../ui/components.tsx';
import { QueryView } from '../../ui/queries.tsx';

const sameIds = (a: readonly string[], b: readonly string[]) => [...a].sort().join() === [...b].sort().join();

export function CustomerGroupsPanel({ customer }: { customer: CustomerDetail }) {
  const session = useStaffSession();
  const groups = useCustomerGroups();
  const legendId = useId();
  const [ticked, setTicked] = useState<string[]>(customer.groupIds);
  const [status, setStatus] = useState('');
  const save = useSetCustomerGroups(customer.id, () => setStatus('Groups saved.'));
  const readOnly = session.data?.staff.role === 'staff';
  const changed = !sameIds(ticked, customer.groupIds);

  function submit(event: FormEvent) {
    event.preventDefault();
    setStatus('');
    save.mutate(ticked);
  }

  return (
    <section className="panel orders-panel" aria-labelledby="groups-title">
      <h2 id="groups-title">Groups</h2>
      <QueryView
        query={groups}
        loading="Loading groups…"
        empty={
          <p>
            The store has no customer groups yet. <Link to="/customer-groups">Add one</Link>
          </p>
        }
      >
        {(data) =>
          readOnly ? (
            <p>
              {customer.groupIds.length === 0
                ? 'In no group.'
                : `In ${data.items
                    .filter((group) => customer.groupIds.includes(group.id))
                    .map((group) => group.name)
                    .join(', ')}.`}
            </p>
          ) : (
            <form onSubmit={submit}>
              <fieldset className="customer-groups" aria-describedby={`${legendId}-hint`}>
                <legend id={legendId}>The customer’s groups</legend>
                <p className="hint" id={`${legendId}-hint`}>
                  Price lists limited to a group give its members their prices when they sign in to the shop.
                </p>
                {data.items.map((group) => (
                  <label className="checkbox" key={group.id}>
                    <input
                      type="checkbox"
                      checked={ticked.includes(group.id)}
                      onChange={(event) => {
                        setStatus('');
                        setTicked((now) =>
                          event.target.checked ? [...now, group.id] : now.filter((id) => id !== group.id),
                        );
                      }}
                    />
                    <span>{group.name}</span>
                  </label>
                ))}
              </fieldset>
              <ErrorBanner error={save.error} />
              <div className="actions form-actions">
                <button type="submit" disabled={save.isPending || !changed}>
                  {save.isPending ? 'Saving…' : 'Save groups'}
                </button>
                <span role="status" className="muted">
                  {status}
                </span>
              </div>
            </form>
          )
        }
      </QueryView>
    </section>
  );
}
