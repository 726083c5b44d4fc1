/**
 * The list-and-form screens' shared part (Markets, Price lists, Customer groups, Promotions): which
 * form is open under the header (a new record's or a saved one's), the notice after a change, the
 * focus going back to the button that opened the form (or to the page's heading after a deletion,
 * the row being gone), the banners every such screen shows, and a row's Edit and Delete buttons
 * (Delete after a confirmation).
 */
import { useState, type ReactNode } from 'react';
import { ConfirmButton, ErrorBanner, Notice } from './components.tsx';

/** The form open on the screen: a new record's, or a saved one's (by id). */
export type Editing = { id: null } | { id: string };

/** Focuses what `selector` finds once the next render is on screen. */
export function focusLater(selector: string): void {
  requestAnimationFrame(() => document.querySelector<HTMLElement>(selector)?.focus());
}

export interface ListEditor {
  editing: Editing | null;
  notice: string | null;
  /** Opens a form (the last notice goes). */
  open: (next: Editing) => void;
  /** Closes the form with what to say (null: nothing, on Cancel); the focus goes back to its opener. */
  done: (message: string | null) => void;
  /** After a deletion: says so; the focus goes to the page's heading. */
  deleted: (message: string) => void;
  clearNotice: () => void;
}

/**
 * The open form and the notice. `addSelector` finds the button that adds a record; a saved record's
 * form is opened by its row's button marked `data-edit="<id>"`.
 */
export function useListEditor(addSelector: string): ListEditor {
  const [editing, setEditing] = useState<Editing | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  return {
    editing,
    notice,
    open: (next) => {
      setNotice(null);
      setEditing(next);
    },
    done: (message) => {
      const opener = editing?.id ? `[data-edit="${editing.id}"]` : addSelector;
      setEditing(null);
      setNotice(message);
      focusLater(opener);
    },
    deleted: (message) => {
      setNotice(message);
      focusLater('#page-title');
    },
    clearNotice: () => setNotice(null),
  };
}

/**
 * The banners under a list screen's header: for staff, that only owners and admins change `things`;
 * the last change's notice; a failed deletion.
 */
export function ListBanners({
  readOnly,
  things,
  notice,
  error,
}: {
  readOnly: boolean;
  things: string;
  notice: string | null;
  error: unknown;
}) {
  return (
    <>
      {readOnly ? (
        <Notice tone="warning">
          <p>Only owners and admins can change {things}. Your role is staff: you can look at them.</p>
        </Notice>
      ) : null}
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <ErrorBanner error={error} />
    </>
  );
}

/**
 * A row's buttons: Edit (or `editLabel`), marked `data-edit` so the focus comes back to it, and
 * Delete after its confirmation (none when `confirm` is null). `named` ends each button's name for
 * screen readers ("the market Europe").
 */
export function RowActions({
  id,
  named,
  editLabel = 'Edit',
  busy,
  onEdit,
  confirm,
  onDelete,
}: {
  id: string;
  named: string;
  editLabel?: string;
  busy: boolean;
  onEdit: () => void;
  confirm: { title: string; body: ReactNode; label: string } | null;
  onDelete: () => void;
}) {
  return (
    <div className="actions">
      <button type="button" data-edit={id} onClick={onEdit}>
        {editLabel}
        <span className="visually-hidden"> {named}</span>
      </button>
      {confirm ? (
        <ConfirmButton
          title={confirm.title}
          body={confirm.body}
          confirmLabel={confirm.label}
          disabled={busy}
          onConfirm={onDelete}
        >
          Delete<span className="visually-hidden"> {named}</span>
        </ConfirmButton>
      ) : null}
    </div>
  );
}
