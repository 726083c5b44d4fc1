/**
 * Typing that settles: `useDebounced` (a value once it stops changing), and a list's search box
 * kept in the address (`?q=`, so back, forward and reload keep the search): `useUrlSearch` and the
 * form that shows it, `SearchForm`; a list's other filters and its order kept there too,
 * `useUrlFilter` (one of some values) and `useUrlParam` (any value, such as an id); and a picker's
 * search box inside a form, `PickerSearchField`.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { TextField } from './components.tsx';
import type { InputProps } from './fields.tsx';

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * A search box bound to the address's `?q=`: `text` is what the box shows, `q` the search in the
 * address. Typing writes the address once it pauses (`ms`); `submit` writes it at once (Enter).
 */
export function useUrlSearch(ms = 300): {
  q: string;
  text: string;
  setText: (text: string) => void;
  submit: () => void;
} {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const [text, setText] = useState(q);
  const settled = useDebounced(text.trim(), ms);
  // The search this box last wrote to the address: the address catching up with it is no reason to
  // change the box (the staff member may have typed on meanwhile).
  const written = useRef(q);

  const write = (value: string) => {
    written.current = value;
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set('q', value);
        else next.delete('q');
        return next;
      },
      { replace: true },
    );
  };

  // Back and forward change the URL's search: the box follows (unless it already says it). The
  // box's own write arriving is not followed: it would undo what was typed after it.
  useEffect(() => {
    if (q === written.current) return;
    written.current = q;
    setText((current) => (current.trim() === q ? current : q));
  }, [q]);

  // The box writes the URL once typing pauses.
  useEffect(() => {
    if (settled !== q) write(settled);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the typed text settles
  }, [settled]);

  return { q, text, setText, submit: () => write(text.trim()) };
}

/** A list's search form: the search box (Enter searches at once) and the list's other filters. */
export function SearchForm({
  label,
  placeholder,
  hint,
  search,
  children,
}: {
  /** What is searched ("Products"), the search landmark's name. */
  label: string;
  placeholder: string;
  hint?: string;
  search: ReturnType<typeof useUrlSearch>;
  /** The other filters (a status select). */
  children?: ReactNode;
}) {
  return (
    <form
      className="filters"
      role="search"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        search.submit();
      }}
    >
      <TextField
        label="Search"
        type="search"
        name="q"
        placeholder={placeholder}
        hint={hint}
        value={search.text}
        onChange={(event) => search.setText(event.target.value)}
      />
      {children}
    </form>
  );
}

/**
 * A list's parameter kept in the address (`?collection=…`): its value ('' when absent), and its
 * setter (an empty value removes it; the other parameters stay).
 */
export function useUrlParam(name: string): [string, (value: string) => void] {
  const [params, setParams] = useSearchParams();
  const set = (next: string) =>
    setParams(
      (current) => {
        const copy = new URLSearchParams(current);
        if (next) copy.set(name, next);
        else copy.delete(name);
        return copy;
      },
      { replace: true },
    );
  return [params.get(name) ?? '', set];
}

/**
 * A list's filter kept in the address (`?status=paid`): the value when it is one of `values`
 * (undefined otherwise, or when absent), and its setter (an empty value removes it).
 */
export function useUrlFilter<T extends string>(
  name: string,
  values: readonly T[],
): [T | undefined, (value: string) => void] {
  const [raw, set] = useUrlParam(name);
  const value = (values as readonly string[]).includes(raw) ? (raw as T) : undefined;
  return [value, set];
}

/**
 * A search box inside a form that picks something (a product, a customer): Enter searches, it never
 * submits the form around it.
 */
export function PickerSearchField({
  onText,
  ...input
}: Omit<InputProps, 'type' | 'onChange' | 'onKeyDown'> & { onText: (text: string) => void }) {
  return (
    <TextField
      type="search"
      {...input}
      onChange={(event) => onText(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') event.preventDefault();
      }}
    />
  );
}
