/**
 * The additive-only check of the public Storefront API (spec section 9): within /storefront/v1
 * fields are added, never renamed or removed, and clients ignore fields they do not know.
 *
 *   node scripts/contract.ts           compares contract/openapi.json with the recorded snapshot;
 *                                      exits 1 listing every breaking change (npm run check)
 *   node scripts/contract.ts --update  records contract/storefront.snapshot.json (npm run contract);
 *                                      refuses while the document breaks the recorded contract,
 *                                      unless --accept-breaking is given too
 *   --openapi=FILE --snapshot=FILE     compare or record other files (tests; another branch's document)
 *
 * The snapshot keeps what clients depend on (scripts/contract/snapshot.ts); the comparison reads
 * it the way clients do (scripts/contract/compare.ts, scripts/contract/schemas.ts). What counts as
 * breaking is listed in docs/api-conventions.md, "Versioning: the additive-only check".
 */
import fs from 'node:fs';
import path from 'node:path';
import { compareContracts } from './contract/compare.ts';
import { formatJson, isObject, type Json } from './contract/json.ts';
import { snapshot, type Snapshot } from './contract/snapshot.ts';

export { breakingChanges, compareContracts, type ContractChanges } from './contract/compare.ts';
export { snapshot, type Snapshot } from './contract/snapshot.ts';

const root = path.resolve(import.meta.dirname, '..');
export const SNAPSHOT_FILE = path.join(root, 'contract', 'storefront.snapshot.json');
export const OPENAPI_FILE = path.join(root, 'contract', 'openapi.json');

const NOTE =
  'The recorded Storefront API contract (spec 9): written by `npm run contract` from contract/openapi.json, ' +
  'compared against it by `npm run check`. Commit it with the additive change it records.';

/** The snapshot file's text: always the same bytes for the same contract. */
export function formatSnapshot(contract: Snapshot): string {
  return formatJson({ $comment: NOTE, ...contract });
}

export function parseSnapshot(text: string): Snapshot {
  const value = JSON.parse(text) as Json;
  if (!isObject(value) || !isObject(value.operations) || !isObject(value.webhooks)) {
    throw new Error('not a contract snapshot (no "operations" and "webhooks")');
  }
  return { operations: value.operations, webhooks: value.webhooks } as Snapshot;
}

function readJson(file: string): Json {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function counts(contract: Snapshot): string {
  return `${plural(Object.keys(contract.operations).length, 'operation')}, ${plural(Object.keys(contract.webhooks).length, 'webhook event')}`;
}

function listBreaking(breaking: string[]): string {
  return `${breaking.map((line) => `  - ${line}\n`).join('')}`;
}

function update(file: string, current: Snapshot, recorded: Snapshot | null, acceptBreaking: boolean): number {
  const breaking = recorded ? compareContracts(recorded, current).breaking : [];
  if (breaking.length > 0 && !acceptBreaking) {
    process.stderr.write(
      `Not recording ${path.relative(root, file)}: the document breaks the recorded contract ` +
        `(${plural(breaking.length, 'breaking change')}):\n${listBreaking(breaking)}` +
        'Within /storefront/v1 the contract is additive-only. Restore what clients rely on, or, for a ' +
        'change agreed with every client, run `node scripts/contract.ts --update --accept-breaking`.\n',
    );
    return 1;
  }
  fs.writeFileSync(file, formatSnapshot(current));
  process.stdout.write(`Wrote ${path.relative(root, file)} (${counts(current)})\n`);
  return 0;
}

function check(file: string, current: Snapshot, recorded: Snapshot | null, recordedText: string): number {
  if (recorded === null) {
    process.stderr.write(`No ${path.relative(root, file)}: run \`npm run contract\` and commit it.\n`);
    return 1;
  }
  const { breaking, additive } = compareContracts(recorded, current);
  if (breaking.length > 0) {
    process.stderr.write(
      `Storefront contract: ${plural(breaking.length, 'breaking change')} against ` +
        `${path.relative(root, file)} (within /storefront/v1 fields are added, never renamed or removed):\n` +
        `${listBreaking(breaking)}` +
        'Restore what clients rely on; see docs/api-conventions.md ("Versioning: the additive-only check").\n',
    );
    return 1;
  }
  let summary = `Storefront contract: ${counts(current)}, additive-only ✓`;
  if (additive.length > 0) {
    summary += `; ${plural(additive.length, 'addition')}; run npm run contract to record them`;
  } else if (formatSnapshot(current) !== recordedText) {
    summary += '; the snapshot differs in form only; run npm run contract to refresh it';
  }
  process.stdout.write(`${summary}\n`);
  return 0;
}

/** `--name=value`, or undefined. */
function option(args: string[], name: string): string | undefined {
  const prefix = `--${name}=`;
  return args.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const openapiFile = path.resolve(option(args, 'openapi') ?? OPENAPI_FILE);
  const snapshotFile = path.resolve(option(args, 'snapshot') ?? SNAPSHOT_FILE);
  const current = snapshot(readJson(openapiFile));
  const recordedText = fs.existsSync(snapshotFile) ? fs.readFileSync(snapshotFile, 'utf8') : null;
  const recorded = recordedText === null ? null : parseSnapshot(recordedText);
  process.exitCode = args.includes('--update')
    ? update(snapshotFile, current, recorded, args.includes('--accept-breaking'))
    : check(snapshotFile, current, recorded, recordedText ?? '');
}
