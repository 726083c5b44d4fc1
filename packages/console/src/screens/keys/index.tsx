/**
 * Storefront keys: the publishable `pk_` keys a shop's front end calls the Storefront API with.
 * The full key exists only in the create answer: it is kept in this screen's state (never in the
 * query cache or storage), shown once with a copy button, and gone after a reload or navigation.
 */
import type { StorefrontKeyWithSecret } from '@storefront/client';
import { useState } from 'react';
import { useRevokeStorefrontKey, useStorefrontKeys } from '../../data/storefront-keys.ts';
import {
  ACTIONS,
  ConfirmButton,
  ErrorBanner,
  Notice,
  PageHeader,
  SecretOnce,
  StatusBadge,
  useCursorPager,
} from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { PagedTable } from '../../ui/queries.tsx';
import { FocusOnShow, focusSoon, roleError } from '../integrations-parts.tsx';
import { Budgets, CreateKey, EditKey } from './key-form.tsx';

export function Keys() {
  const pager = useCursorPager();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<StorefrontKeyWithSecret | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [warning, setWarning] = useState<string | null>(null);
  const keys = useStorefrontKeys(pager.cursor);
  const revoke = useRevokeStorefrontKey({
    onDone: (key) => {
      setMessage(`The key “${key.label}” is revoked: it stops working within a second.`);
      if (created?.id === key.id) setCreated(null);
    },
  });
  const editingKey = keys.data?.items.find((key) => key.id === editing);

  return (
    <>
      <PageHeader
        title="Storefront keys"
        actions={
          creating ? null : (
            <button
              type="button"
              id="create-key-button"
              className="primary"
              onClick={() => {
                setCreating(true);
                setEditing(null);
                setMessage(null);
                setWarning(null);
              }}
            >
              Create key
            </button>
          )
        }
      >
        <p className="muted">
          Publishable keys (<code>pk_…</code>) let your shop’s front end read the catalog and run carts and
          checkout through the Storefront API. They are not secret, so limit them to your shop’s origins.
        </p>
      </PageHeader>

      {created ? (
        <FocusOnShow>
          <SecretOnce
            label={`Storefront key “${created.label}”`}
            value={created.key}
            onDone={() => setCreated(null)}
          />
        </FocusOnShow>
      ) : null}
      {message ? <Notice tone="success">{message}</Notice> : null}
      {warning ? <Notice tone="warning">{warning}</Notice> : null}

      {creating ? (
        <CreateKey
          onCreated={(key, budgetsSaved) => {
            setCreated(key);
            setCreating(false);
            if (!budgetsSaved)
              setWarning('The key was created, but its budgets were not saved: edit the key to set them.');
          }}
          onCancel={() => {
            setCreating(false);
            focusSoon('#create-key-button');
          }}
        />
      ) : null}
      {editingKey ? (
        <EditKey
          key={editingKey.id}
          storefrontKey={editingKey}
          onDone={(saved) => {
            setEditing(null);
            focusSoon(`tr[data-key-id="${editingKey.id}"] button`);
            if (saved) setMessage(`The key “${editingKey.label}” is saved.`);
          }}
        />
      ) : null}
      <ErrorBanner error={revoke.error} />

      <PagedTable
        query={keys}
        pager={pager}
        loading="Loading keys…"
        error={roleError('owners and admins', 'manage storefront keys')}
        empty={<p>No storefront keys yet. Create one to connect your shop’s front end.</p>}
        wrap="contained"
        caption="Storefront keys"
        columns={['Label', 'Key', 'Allowed origins', 'Budgets', 'Created', 'Status', ACTIONS]}
      >
        {(key) => (
          <tr key={key.id} data-key-id={key.id}>
            <td>{key.label}</td>
            <td>
              <code className="key-prefix">{key.keyPrefix}…</code>
            </td>
            <td>
              {key.allowedOrigins.length === 0 ? (
                <span className="muted">None</span>
              ) : (
                <ul className="plain-list">
                  {key.allowedOrigins.map((origin) => (
                    <li key={origin}>
                      <code>{origin}</code>
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td>
              <Budgets storefrontKey={key} />
            </td>
            <td>{formatDateTime(key.createdAt)}</td>
            <td>
              {key.revokedAt ? (
                <>
                  <StatusBadge status="revoked" />
                  <br />
                  <span className="muted">{formatDateTime(key.revokedAt)}</span>
                </>
              ) : (
                <StatusBadge status="active" />
              )}
            </td>
            <td>
              {key.revokedAt ? null : (
                <div className="actions nowrap">
                  <button
                    type="button"
                    aria-label={`Edit ${key.label}`}
                    aria-expanded={editing === key.id}
                    onClick={() => {
                      setEditing(key.id);
                      setCreating(false);
                      setMessage(null);
                    }}
                  >
                    Edit
                  </button>
                  <ConfirmButton
                    title={`Revoke “${key.label}”?`}
                    body={
                      <p>
                        Every shop using <code>{key.keyPrefix}…</code> stops working within a second. This
                        cannot be undone: you would create a new key and deploy it.
                      </p>
                    }
                    confirmLabel="Revoke key"
                    onConfirm={() => {
                      setMessage(null);
                      revoke.mutate(key);
                    }}
                    disabled={revoke.isPending}
                  >
                    <span aria-hidden="true">Revoke</span>
                    <span className="visually-hidden">Revoke {key.label}</span>
                  </ConfirmButton>
                </div>
              )}
            </td>
          </tr>
        )}
      </PagedTable>
    </>
  );
}
