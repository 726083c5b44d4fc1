/**
 * One import, followed while it runs (read again every second): its status, the rows checked and
 * written of the file's rows with a progress bar, then what it did (created, updated, unchanged)
 * or why nothing was written, and its bad rows (row, column, problem) as the check found them.
 */
import { Link, useParams } from 'react-router';
import { isUnfinished, useImport, type ImportJob } from '../../data/imports.ts';
import { DataTable, Notice, PageHeader, StatusBadge } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { QueryView } from '../../ui/queries.tsx';
import { KIND_LABELS, rowCount } from './words.ts';
import '../orders.css';
import '../imports.css';

/** Where what an import wrote is seen. */
const WRITTEN_TO: Record<ImportJob['kind'], { to: string; label: string }> = {
  products: { to: '/products', label: 'View products' },
  customers: { to: '/customers', label: 'View customers' },
  inventory: { to: '/products', label: 'View products' },
};

export function ImportDetail() {
  const { id = '' } = useParams();
  const job = useImport(id);
  const title = job.data?.fileName ? `Import of ${job.data.fileName}` : 'Import';
  return (
    <>
      <PageHeader
        title={title}
        actions={
          <Link className="button" to={`/imports${job.data ? `?kind=${job.data.kind}` : ''}`}>
            Import another file
          </Link>
        }
      >
        <p>
          <Link to="/imports">All imports</Link>
        </p>
      </PageHeader>
      <QueryView query={job} loading="Loading the import…" keepData>
        {(data) => <ImportView job={data} />}
      </QueryView>
    </>
  );
}

function ImportView({ job }: { job: ImportJob }) {
  return (
    <>
      <dl className="import-facts">
        <dt>Kind</dt>
        <dd>{KIND_LABELS[job.kind]}</dd>
        <dt>Mode</dt>
        <dd>{job.dryRun ? 'Check only (nothing is written)' : 'Import'}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={job.status} />
        </dd>
        <dt>Uploaded</dt>
        <dd>{formatDateTime(job.createdAt)}</dd>
        <dt>Finished</dt>
        <dd>{job.finishedAt ? formatDateTime(job.finishedAt) : '—'}</dd>
      </dl>
      <Progress job={job} />
      {isUnfinished(job) ? null : <Outcome job={job} />}
      {job.ignoredColumns.length > 0 ? (
        <p className="muted">
          Columns not read (this kind has no use for them): {job.ignoredColumns.join(', ')}.
        </p>
      ) : null}
      <RowErrors job={job} />
    </>
  );
}

/** What the progress says in words (also the live status screen readers hear). */
function progressWords(job: ImportJob): string {
  const { rows, done } = job.progress;
  switch (job.status) {
    case 'queued':
      return 'Waiting to start…';
    case 'checking':
      return 'Checking every row…';
    case 'running':
      return `Checked ${rowCount(rows ?? 0)}. Written ${done} of ${rows ?? 0}…`;
    case 'completed':
      return job.dryRun
        ? `Checked ${rowCount(rows ?? 0)}.`
        : `Checked ${rowCount(rows ?? 0)}. Written ${done} of ${rows ?? 0}.`;
    case 'failed':
      return rows === null
        ? 'The file could not be read.'
        : `Checked ${rowCount(rows)}. Nothing was written.`;
  }
}

function Progress({ job }: { job: ImportJob }) {
  const { rows, done } = job.progress;
  const words = progressWords(job);
  // Checking has no measure until every row is read: the bar is then indeterminate.
  const measured = job.status === 'running' || (job.status === 'completed' && rows !== null);
  const max = rows && rows > 0 ? rows : 1;
  const value = job.status === 'completed' ? max : Math.min(done, max);
  return (
    <section className="panel import-progress" aria-labelledby="import-progress-title">
      <h2 id="import-progress-title">Progress</h2>
      {job.status === 'failed' ? null : measured ? (
        <progress max={max} value={value} aria-label="Rows written" aria-valuetext={words} />
      ) : (
        <progress aria-label="Rows checked" aria-valuetext={words} />
      )}
      <p role="status">{words}</p>
    </section>
  );
}

function Outcome({ job }: { job: ImportJob }) {
  const bad = job.errorCount;
  if (job.status === 'failed') {
    return (
      <div className="banner error" role="alert">
        {job.failure ? (
          <p>The file could not be read: {job.failure}.</p>
        ) : (
          <p>
            {rowCount(bad)} {bad === 1 ? 'has a problem' : 'have problems'} (listed below).
          </p>
        )}
        <p>Nothing was written. Fix the file and upload it again.</p>
      </div>
    );
  }
  if (job.dryRun) {
    return bad === 0 ? (
      <Notice tone="success">
        <p>Every row is fine. This was a check only: nothing was written.</p>
        <p>Upload the file again without “Check only” to import it.</p>
      </Notice>
    ) : (
      <div className="banner warning" role="status">
        <p>
          {rowCount(bad)} {bad === 1 ? 'has a problem' : 'have problems'} (listed below). This was a check
          only: nothing was written.
        </p>
        <p>Fix the rows in the file and check it again; an import of it as it is would write nothing.</p>
      </div>
    );
  }
  const { created, updated, unchanged } = job.summary;
  const written = WRITTEN_TO[job.kind];
  return (
    <section className="panel import-result" aria-labelledby="import-result-title">
      <h2 id="import-result-title">Result</h2>
      <Notice tone="success">
        <p>The import is complete.</p>
      </Notice>
      <dl className="import-summary">
        <div>
          <dt>Created</dt>
          <dd>{created}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{updated}</dd>
        </div>
        <div>
          <dt>Unchanged</dt>
          <dd>{unchanged}</dd>
        </div>
      </dl>
      {bad > 0 ? (
        <p>
          Some rows could not do everything they asked (an image that could not be fetched, say): listed
          below.
        </p>
      ) : null}
      <p>
        <Link to={written.to}>{written.label}</Link>
      </p>
    </section>
  );
}

function RowErrors({ job }: { job: ImportJob }) {
  if (job.errors.length === 0) return null;
  return (
    <section aria-labelledby="import-errors-title">
      <h2 id="import-errors-title">Rows with problems</h2>
      <p className="muted">
        Rows are numbered as a spreadsheet shows them: the header is row 1.
        {job.errorCount > job.errors.length
          ? ` The first ${job.errors.length} of ${job.errorCount} are listed.`
          : ''}
      </p>
      <DataTable
        wrap="orders-table-wrap"
        className="import-errors"
        caption="Rows with problems"
        columns={[{ label: 'Row', num: true }, 'Column', 'Problem']}
      >
        {job.errors.map((error, i) => (
          <tr key={`${error.row}-${error.column ?? ''}-${i}`}>
            <td className="num">{error.row}</td>
            <td>{error.column ?? <span className="muted">The whole row</span>}</td>
            <td>{error.detail}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
