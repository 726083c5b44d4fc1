/**
 * Import (docs/import-export.md, decision `csv-imports`): a CSV file uploaded as an import job (its
 * kind: Shopify's product CSV, Shopify's customer CSV or stock counts by SKU; "Check only" writes
 * nothing), then followed on its own page (detail.tsx) while a worker checks and writes it; the
 * recent imports, newest first. For owners and admins: the API refuses the staff role.
 */
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useCreateImport, useImports, type ImportKind } from '../../data/imports.ts';
import { useStaffSession } from '../../data/staff.ts';
import {
  CheckboxField,
  ErrorBanner,
  Notice,
  PageHeader,
  RadioChoice,
  StatusBadge,
  useCursorPager,
} from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { PagedTable } from '../../ui/queries.tsx';
import { KIND_LABELS, rowsText } from './words.ts';
import '../orders.css';
import '../imports.css';

export { ImportDetail } from './detail.tsx';

const KINDS: readonly ImportKind[] = ['products', 'customers', 'inventory'];

const KIND_CHOICES: readonly { value: ImportKind; label: string; hint: string }[] = [
  {
    value: 'products',
    label: 'Products: Shopify product CSV',
    hint: 'Shopify’s Products → Export file, unchanged. Products are found by handle, variants by SKU.',
  },
  {
    value: 'customers',
    label: 'Customers: Shopify customer CSV',
    hint: 'Shopify’s Customers → Export file. Customers are found by email; a new one is a guest.',
  },
  {
    value: 'inventory',
    label: 'Inventory: stock counts by SKU',
    hint: 'Columns SKU and On hand (or Shopify’s inventory export).',
  },
];

export function Imports() {
  const session = useStaffSession();
  const role = session.data?.staff.role;
  return (
    <>
      <PageHeader title="Import">
        <p className="muted">
          Move products, customers and stock in from a CSV file. Every row is checked before anything is
          written: if one is wrong, nothing is.
        </p>
      </PageHeader>
      {role === 'staff' ? (
        // Imports are for owners and admins: the API refuses a staff member with 403.
        <Notice tone="warning">
          <p>
            Only owners and admins can import and export. Your role is staff. Ask the store owner if you need
            access.
          </p>
        </Notice>
      ) : role ? (
        <>
          <UploadForm />
          <RecentImports />
        </>
      ) : null}
    </>
  );
}

function UploadForm() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const asked = params.get('kind');
  const [kind, setKind] = useState<ImportKind>(
    KINDS.includes(asked as ImportKind) ? (asked as ImportKind) : 'products',
  );
  const [dryRun, setDryRun] = useState(false);
  const [missingFile, setMissingFile] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const upload = useCreateImport((job) => void navigate(`/imports/${job.id}`));

  function submit(event: FormEvent) {
    event.preventDefault();
    const file = fileInput.current?.files?.[0];
    if (!file) {
      setMissingFile(true);
      fileInput.current?.focus();
      return;
    }
    setMissingFile(false);
    upload.mutate({ kind, dryRun, file });
  }

  return (
    <form className="panel import-form" aria-labelledby="import-form-title" onSubmit={submit} noValidate>
      <h2 id="import-form-title">Upload a CSV file</h2>
      <RadioChoice legend="What the file holds" value={kind} choices={KIND_CHOICES} onChange={setKind} />
      <div className={`field${missingFile ? ' invalid' : ''}`}>
        <label htmlFor="import-file">CSV file</label>
        <input
          ref={fileInput}
          id="import-file"
          name="file"
          type="file"
          accept=".csv,text/csv"
          required
          aria-invalid={missingFile || undefined}
          aria-describedby={missingFile ? 'import-file-hint import-file-error' : 'import-file-hint'}
          onChange={() => setMissingFile(false)}
        />
        <p className="hint" id="import-file-hint">
          UTF-8, with a header row; at most 64 MiB.
        </p>
        {missingFile ? (
          <p className="field-error" id="import-file-error">
            Choose the CSV file to import.
          </p>
        ) : null}
      </div>
      <CheckboxField
        label="Check only (dry run)"
        hint="Reads and checks every row and lists the bad ones; writes nothing."
        checked={dryRun}
        onChange={(event) => setDryRun(event.target.checked)}
      />
      <ErrorBanner error={upload.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={upload.isPending} aria-busy={upload.isPending}>
          {upload.isPending ? 'Uploading…' : 'Upload'}
        </button>
      </div>
    </form>
  );
}

function RecentImports() {
  const pager = useCursorPager();
  const imports = useImports(pager.cursor);
  return (
    <section aria-labelledby="recent-imports-title">
      <h2 id="recent-imports-title">Recent imports</h2>
      <PagedTable
        query={imports}
        pager={pager}
        loading="Loading imports…"
        empty={<p>No imports yet.</p>}
        wrap="orders-table-wrap"
        className="row-headed imports-table"
        caption="Imports, newest first"
        columns={['File', 'Kind', 'Status', { label: 'Rows', num: true }, 'Uploaded', 'Finished']}
      >
        {(job) => (
          <tr key={job.id}>
            <th scope="row">
              <Link to={`/imports/${job.id}`}>{job.fileName ?? 'Untitled file'}</Link>
              {job.dryRun ? <div className="muted small">Check only</div> : null}
            </th>
            <td>{KIND_LABELS[job.kind]}</td>
            <td>
              <StatusBadge status={job.status} />
              {job.errorCount > 0 ? (
                <div className="muted small">
                  {job.errorCount} bad row{job.errorCount === 1 ? '' : 's'}
                </div>
              ) : null}
            </td>
            <td className="num">{rowsText(job)}</td>
            <td>{formatDateTime(job.createdAt)}</td>
            <td>{job.finishedAt ? formatDateTime(job.finishedAt) : '—'}</td>
          </tr>
        )}
      </PagedTable>
    </section>
  );
}
