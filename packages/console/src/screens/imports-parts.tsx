/**
 * What the Products, Orders and Customers lists share with the Import screen (decisions
 * `csv-imports` and `csv-exports`): "Export CSV", which downloads the list's whole CSV with the
 * session's token, and the "Import" link to the Import screen with the kind chosen. Both are for
 * owners and admins (the API refuses the staff role), so neither shows for staff.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { useExportCsv, type ExportFile, type ExportKind, type ImportKind } from '../data/imports.ts';
import { useStaffSession } from '../data/staff.ts';
import { ErrorBanner } from '../ui/components.tsx';
import './imports.css';

/** Saves the file through the browser's download (a temporary link; nothing leaves the page). */
function saveFile({ blob, fileName }: ExportFile): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the link's click; the address may go once it has been read.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Whether the signed-in member may import and export (owners and admins). */
export function useMayMoveData(): boolean {
  const session = useStaffSession();
  return session.data !== undefined && session.data.staff.role !== 'staff';
}

/** "Export CSV": downloads every record of `kind` as CSV, busy while it does, its error under it. */
export function ExportCsvButton({ kind }: { kind: ExportKind }) {
  const mayExport = useMayMoveData();
  const exportCsv = useExportCsv(kind);
  const [saved, setSaved] = useState<string | null>(null);
  if (!mayExport) return null;
  return (
    <div className="export-csv">
      <button
        type="button"
        aria-busy={exportCsv.isPending || undefined}
        disabled={exportCsv.isPending}
        onClick={() => {
          setSaved(null);
          exportCsv.mutate(undefined, {
            onSuccess: (file) => {
              saveFile(file);
              setSaved(file.fileName);
            },
          });
        }}
      >
        {exportCsv.isPending ? 'Exporting…' : 'Export CSV'}
      </button>
      <p className="visually-hidden" role="status">
        {exportCsv.isPending ? `Exporting ${kind}…` : saved ? `Downloaded ${saved}.` : ''}
      </p>
      <ErrorBanner error={exportCsv.error} />
    </div>
  );
}

/** "Import": the Import screen, with `kind` chosen. */
export function ImportLink({ kind }: { kind: ImportKind }) {
  const mayImport = useMayMoveData();
  if (!mayImport) return null;
  return (
    <Link className="button" to={`/imports?kind=${kind}`}>
      Import
    </Link>
  );
}
