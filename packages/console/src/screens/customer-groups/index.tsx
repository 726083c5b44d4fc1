/**
 * Customer groups (docs/customers.md, decision `customer-groups`): named sets of customers, like
 * “Wholesale” or “VIP”, that price lists can be limited to. The list (oldest first, with how many
 * customers each has), the form that adds or renames one (group-form.tsx), and deleting one after a
 * confirmation. Customers are put in groups on their own page. Staff may look; owners and admins
 * change them.
 */
import { Link } from 'react-router';
import { useCustomerGroups, useDeleteCustomerGroup, type CustomerGroup } from '../../data/customer-groups.ts';
import { useStaffSession } from '../../data/staff.ts';
import { ACTIONS, DataTable, PageHeader } from '../../ui/components.tsx';
import { formatDate } from '../../ui/dates.ts';
import { ListBanners, RowActions, useListEditor, type Editing } from '../../ui/list-editor.tsx';
import { QueryView } from '../../ui/queries.tsx';
import { GroupForm } from './group-form.tsx';
import '../orders.css';

const members = (count: number) => `${count} ${count === 1 ? 'customer' : 'customers'}`;

export function CustomerGroups() {
  const session = useStaffSession();
  const groups = useCustomerGroups();
  const editor = useListEditor('[data-add-group]');
  const { editing } = editor;
  const remove = useDeleteCustomerGroup({
    onDone: (group) => editor.deleted(`The group “${group.name}” was deleted.`),
  });
  const readOnly = session.data?.staff.role === 'staff';

  const open = (next: Editing) => {
    remove.reset();
    editor.open(next);
  };
  const edited = editing?.id ? groups.data?.items.find((group) => group.id === editing.id) : null;

  return (
    <>
      <PageHeader
        title="Customer groups"
        actions={
          readOnly ? null : (
            <button type="button" className="primary" data-add-group onClick={() => open({ id: null })}>
              Add group
            </button>
          )
        }
      >
        <p className="muted">
          Named sets of customers, like “Wholesale” or “VIP”. A <Link to="/price-lists">price list</Link> can
          be limited to groups: its prices are then for their members, signed in to the shop. Put a customer
          in a group on the customer’s page.
        </p>
      </PageHeader>
      <ListBanners readOnly={readOnly} things="customer groups" notice={editor.notice} error={remove.error} />
      {editing && (editing.id === null || edited) ? (
        <GroupForm key={editing.id ?? 'new'} group={edited ?? null} onDone={editor.done} />
      ) : null}
      <QueryView
        query={groups}
        loading="Loading customer groups…"
        empty={<p>No customer groups yet.</p>}
        keepData
      >
        {(data) => (
          <DataTable
            wrap="orders-table-wrap"
            className="row-headed"
            caption="Customer groups, oldest first"
            columns={['Group', { label: 'Members', num: true }, 'Created', !readOnly && ACTIONS]}
          >
            {data.items.map((group) => (
              <tr key={group.id}>
                <th scope="row">{group.name}</th>
                <td className="num">{members(group.memberCount)}</td>
                <td>
                  <time dateTime={group.createdAt}>{formatDate(group.createdAt)}</time>
                </td>
                {readOnly ? null : (
                  <td>
                    <GroupActions
                      group={group}
                      busy={remove.isPending}
                      onEdit={() => open({ id: group.id })}
                      onDelete={() => {
                        editor.clearNotice();
                        remove.mutate(group);
                      }}
                    />
                  </td>
                )}
              </tr>
            ))}
          </DataTable>
        )}
      </QueryView>
    </>
  );
}

function GroupActions({
  group,
  busy,
  onEdit,
  onDelete,
}: {
  group: CustomerGroup;
  busy: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <RowActions
      id={group.id}
      named={`the group ${group.name}`}
      editLabel="Rename"
      busy={busy}
      onEdit={onEdit}
      confirm={{
        title: `Delete the group “${group.name}”?`,
        body: (
          <p>
            Its {members(group.memberCount)} leave it, and price lists no longer name it: a list limited to
            this group alone then applies to nobody until you give it other groups. The customers are kept.
          </p>
        ),
        label: 'Delete group',
      }}
      onDelete={onDelete}
    />
  );
}
