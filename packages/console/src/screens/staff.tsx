/**
 * Staff and roles: who can sign in to the console, with which role; add, change role, remove
 * (with confirmation). Managing staff is the owner's (the API answers 403 to others): everyone
 * sees who they are signed in as.
 */
import { useState, type FormEvent } from 'react';
import {
  useAddStaffMember,
  useChangeStaffRole,
  useRemoveStaffMember,
  useStaff,
  useStaffSession,
  type StaffMember as Member,
  type StaffRole as Role,
} from '../data/staff.ts';
import { useSession } from '../session.tsx';
import {
  ACTIONS,
  ConfirmButton,
  ErrorBanner,
  PageHeader,
  SelectField,
  StatusBadge,
  SubmitCancel,
  TextField,
  useCursorPager,
} from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { messageAt } from '../ui/problems.ts';
import { PagedTable } from '../ui/queries.tsx';
import { FocusedNotice, focusSoon, roleError } from './integrations-parts.tsx';

const ROLES: { value: Role; label: string; help: string }[] = [
  { value: 'staff', label: 'Staff', help: 'products, collections, content and orders, day to day' },
  {
    value: 'admin',
    label: 'Admin',
    help: 'also settings, pricing, refunds, storefront keys, webhooks, email, themes and apps',
  },
  { value: 'owner', label: 'Owner', help: 'everything, including staff and their roles' },
];

function RoleHelp() {
  return (
    <ul className="role-help hint">
      {ROLES.map((role) => (
        <li key={role.value}>
          <strong>{role.label}</strong>: {role.help}.
        </li>
      ))}
    </ul>
  );
}

function AddMember({ onAdded, onCancel }: { onAdded: (member: Member) => void; onCancel: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('staff');
  const [submitted, setSubmitted] = useState(false);
  const add = useAddStaffMember({ onSuccess: onAdded });
  const emailError = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())
    ? undefined
    : 'Enter their email address, like name@example.com.';

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (emailError) return;
    add.mutate({ email: email.trim(), role });
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="add-staff-title">
      <h2 id="add-staff-title">Add a staff member</h2>
      <div className="grid-2">
        <TextField
          label="Email"
          name="staff-email"
          type="email"
          autoFocus
          autoComplete="off"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          required
          error={(submitted ? emailError : undefined) ?? messageAt(add.error, '/email')}
        />
        <SelectField
          label="Role"
          name="staff-role"
          value={role}
          onChange={(event) => setRole(event.target.value as Role)}
          options={ROLES.map(({ value, label }) => ({ value, label }))}
          error={messageAt(add.error, '/role')}
        />
      </div>
      <RoleHelp />
      <ErrorBanner error={add.error} />
      <SubmitCancel label="Add staff member" busyLabel="Adding…" busy={add.isPending} onCancel={onCancel} />
    </form>
  );
}

function RoleCell({ member, isYou }: { member: Member; isYou: boolean }) {
  const [role, setRole] = useState<Role>(member.role);
  const change = useChangeStaffRole();
  return (
    <div>
      <div className="inline-form">
        <span className="row-select">
          <label className="visually-hidden" htmlFor={`role-${member.id}`}>
            Role of {member.email}
          </label>
          <select
            id={`role-${member.id}`}
            name={`role-${member.id}`}
            value={role}
            onChange={(event) => {
              setRole(event.target.value as Role);
              change.reset();
            }}
          >
            {ROLES.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </span>
        {role !== member.role ? (
          <button
            type="button"
            className="primary"
            onClick={() => change.mutate({ member, role, isYou })}
            disabled={change.isPending}
          >
            {change.isPending ? 'Saving…' : 'Save role'}
          </button>
        ) : null}
      </div>
      {isYou && member.role === 'owner' && role !== 'owner' ? (
        <p className="hint">You will no longer be able to manage staff.</p>
      ) : null}
      <ErrorBanner error={change.error} />
    </div>
  );
}

export function Staff() {
  const session = useStaffSession();
  const { signOut } = useSession();
  const pager = useCursorPager();
  const [adding, setAdding] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const me = session.data?.staff;
  const staff = useStaff(pager.cursor);
  const remove = useRemoveStaffMember({
    onSuccess: (_none, { member, isYou }) => {
      if (isYou) signOut('You removed yourself from this store.');
      else setMessage(`${member.email} is removed; their sessions have ended.`);
    },
  });
  const roleLabel = ROLES.find((role) => role.value === me?.role)?.label;

  return (
    <>
      <PageHeader
        title="Staff"
        actions={
          adding || staff.isError ? null : (
            <button
              type="button"
              id="add-staff-button"
              className="primary"
              onClick={() => {
                setAdding(true);
                setMessage(null);
              }}
            >
              Add staff member
            </button>
          )
        }
      >
        <p data-testid="who-am-i">
          {me ? (
            <>
              You are signed in as <strong>{me.email}</strong> ({roleLabel ?? me.role})
              {session.data
                ? `, until ${formatDateTime(session.data.expiresAt)} unless you keep working`
                : ''}
              .
            </>
          ) : (
            <span className="muted">Loading who you are…</span>
          )}
        </p>
      </PageHeader>

      <FocusedNotice message={message} />
      {adding ? (
        <AddMember
          onAdded={(member) => {
            setAdding(false);
            setMessage(
              `${member.email} is added as ${member.role}. They sign in at this console with their email: a code is sent when they do.`,
            );
          }}
          onCancel={() => {
            setAdding(false);
            focusSoon('#add-staff-button');
          }}
        />
      ) : null}
      <ErrorBanner error={remove.error} />

      <PagedTable
        query={staff}
        pager={pager}
        loading="Loading staff…"
        error={roleError('store owners', 'manage staff and roles')}
        empty={<p>No staff members.</p>}
        wrap="contained"
        caption="Staff members"
        columns={['Email', 'Role', 'Added', ACTIONS]}
        after={
          <>
            <h2>Roles</h2>
            <RoleHelp />
          </>
        }
      >
        {(member) => {
          const isYou = member.id === me?.id;
          return (
            <tr key={member.id} data-staff-email={member.email}>
              <td className="break">
                {member.email}
                {isYou ? (
                  <span className="you">
                    <StatusBadge status="you" />
                  </span>
                ) : null}
              </td>
              <td>
                <RoleCell key={member.role} member={member} isYou={isYou} />
              </td>
              <td>{formatDateTime(member.createdAt)}</td>
              <td>
                <ConfirmButton
                  title={isYou ? 'Remove yourself?' : `Remove ${member.email}?`}
                  body={
                    <p>
                      {isYou
                        ? 'You lose access to this store at once and are signed out.'
                        : `${member.email} loses access to this store at once; their sessions end.`}
                    </p>
                  }
                  confirmLabel="Remove"
                  onConfirm={() => {
                    setMessage(null);
                    remove.mutate({ member, isYou: member.id === me?.id });
                  }}
                  disabled={remove.isPending}
                >
                  <span aria-hidden="true">Remove</span>
                  <span className="visually-hidden">Remove {member.email}</span>
                </ConfirmButton>
              </td>
            </tr>
          );
        }}
      </PagedTable>
    </>
  );
}
