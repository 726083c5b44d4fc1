/**
 * A shipping zone's form: its name and its areas, each a country or the rest of the world,
 * optionally narrowed to some of the country's regions (from the address data) or to postal-code
 * prefixes. Problems are shown at their fields (the server's by their JSON Pointers); a place
 * another zone has already (409 shipping_zone_conflict) is said in the banner.
 */
import { countryRules, regionOptions } from '@storefront/address';
import { StorefrontError } from '@storefront/client';
import { useMemo, useState } from 'react';
import { useSaveZone, type ShippingZone, type ZoneArea, type ZoneBody } from '../../data/shipping.ts';
import { FieldShell, SelectField, TextField } from '../../ui/components.tsx';
import {
  fieldMessage,
  localProblem,
  toFormProblem,
  type FieldMessage,
  type FormProblem,
} from '../../ui/problems.ts';
import { FormPanel } from './form-panel.tsx';
import {
  consoleLanguage,
  inSentence,
  plural,
  regionName,
  REST_OF_WORLD,
  zoneCountries,
} from '../shipping-parts.ts';

type Coverage = 'country' | 'regions' | 'postal';

interface AreaDraft {
  key: string;
  country: string;
  coverage: Coverage;
  regions: string[];
  prefixes: string;
}

let areaKeys = 0;
const areaDraft = (area?: ZoneArea): AreaDraft => ({
  key: `area-${++areaKeys}`,
  country: area?.country ?? '',
  coverage: area?.postalCodePrefixes.length ? 'postal' : area?.regions.length ? 'regions' : 'country',
  regions: area?.regions ?? [],
  prefixes: area?.postalCodePrefixes.join(', ') ?? '',
});

const splitPrefixes = (text: string): string[] =>
  text
    .split(/[,;\n]/)
    .map((prefix) => prefix.trim())
    .filter((prefix) => prefix !== '');

/** What the form can tell before sending: a name, a country per area, what narrows it. */
function checkZone(name: string, areas: readonly AreaDraft[]): FormProblem | null {
  const fields: FieldMessage[] = [];
  if (name.trim() === '') fields.push({ pointer: '/name', detail: 'Enter a name, like “Domestic”.' });
  areas.forEach((area, i) => {
    if (area.country === '')
      fields.push({ pointer: `/areas/${i}/country`, detail: 'Choose a country or the rest of the world.' });
    else if (area.coverage === 'regions' && area.regions.length === 0)
      fields.push({
        pointer: `/areas/${i}/regions`,
        detail: 'Choose at least one, or cover the whole country.',
      });
    else if (area.coverage === 'postal' && splitPrefixes(area.prefixes).length === 0)
      fields.push({
        pointer: `/areas/${i}/postalCodePrefixes`,
        detail: 'Enter at least one prefix, or cover the whole country.',
      });
  });
  return fields.length > 0 ? localProblem('Some fields need your attention.', fields) : null;
}

function zoneBody(name: string, areas: readonly AreaDraft[]): ZoneBody {
  return {
    name: name.trim(),
    areas: areas.map((area) => {
      if (area.country === REST_OF_WORLD || area.coverage === 'country') return { country: area.country };
      if (area.coverage === 'regions') return { country: area.country, regions: area.regions };
      return { country: area.country, postalCodePrefixes: splitPrefixes(area.prefixes) };
    }),
  };
}

export function ZoneForm({
  zone,
  onDone,
}: {
  /** The zone to change; null for a new one. */
  zone: ShippingZone | null;
  /** After a save (with what to say), or on Cancel (null). */
  onDone: (notice: string | null) => void;
}) {
  const [name, setName] = useState(zone?.name ?? '');
  const [areas, setAreas] = useState<AreaDraft[]>(() =>
    zone ? zone.areas.map((area) => areaDraft(area)) : [areaDraft()],
  );
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const save = useSaveZone((saved) =>
    onDone(zone ? `The zone “${saved.name}” was saved.` : `The zone “${saved.name}” was created.`),
  );

  const updateArea = (key: string, changes: Partial<AreaDraft>) => {
    setAreas((list) => list.map((area) => (area.key === key ? { ...area, ...changes } : area)));
    setProblem(null);
  };

  function submit() {
    const local = checkZone(name, areas);
    if (local) return setProblem(local);
    save.mutate(
      { id: zone?.id ?? null, body: zoneBody(name, areas) },
      { onError: (error) => setProblem(conflictProblem(error) ?? toFormProblem(error)) },
    );
  }

  const at = (pointer: string, field: string) => fieldMessage(problem, pointer, field);
  const shown = (pointer: string) =>
    pointer === '/name' || /^\/areas\/\d+(\/(country|regions|postalCodePrefixes)(\/|$)|$)/.test(pointer);

  return (
    <FormPanel
      title={zone ? `Change the zone “${zone.name}”` : 'New zone'}
      problem={problem}
      shown={shown}
      submitLabel={zone ? 'Save zone' : 'Create zone'}
      busy={save.isPending}
      onSubmit={submit}
      onCancel={() => onDone(null)}
    >
      <TextField
        label="Zone name"
        value={name}
        maxLength={200}
        autoComplete="off"
        hint="For you only, like “Domestic” or “Europe”."
        error={at('/name', 'The name')}
        onChange={(event) => {
          setName(event.target.value);
          setProblem(null);
        }}
      />
      {areas.map((area, index) => (
        <AreaFields
          key={area.key}
          index={index}
          area={area}
          at={at}
          onChange={(changes) => updateArea(area.key, changes)}
          onRemove={
            areas.length > 1
              ? () => {
                  setAreas((list) => list.filter((other) => other.key !== area.key));
                  setProblem(null);
                }
              : undefined
          }
        />
      ))}
      <div className="actions">
        <button type="button" onClick={() => setAreas((list) => [...list, areaDraft()])}>
          Add area
        </button>
      </div>
    </FormPanel>
  );
}

/** A place another zone has: the server's sentence, said as the form's problem. */
function conflictProblem(error: unknown): FormProblem | null {
  if (!(error instanceof StorefrontError) || error.title !== 'shipping_zone_conflict') return null;
  return localProblem(`This zone overlaps another: ${error.detail ?? error.title}`, []);
}

function AreaFields({
  index,
  area,
  at,
  onChange,
  onRemove,
}: {
  index: number;
  area: AreaDraft;
  at: (pointer: string, field: string) => string | undefined;
  onChange: (changes: Partial<AreaDraft>) => void;
  onRemove: (() => void) | undefined;
}) {
  const base = `/areas/${index}`;
  const legend = `Area ${index + 1}`;
  const countries = useMemo(zoneCountries, []);
  const rules = area.country && area.country !== REST_OF_WORLD ? countryRules(area.country) : null;
  const regionsLabel = plural(rules?.labels.region ?? 'Region');
  const postalLabel = rules?.labels.postalCode ?? 'Postal code';
  const coverages: { value: Coverage; label: string }[] = [
    { value: 'country', label: 'The whole country' },
    ...(rules && rules.regions.length > 0
      ? [{ value: 'regions' as const, label: `Some ${inSentence(regionsLabel)}` }]
      : []),
    ...(rules?.uses.postalCode
      ? [{ value: 'postal' as const, label: `${plural(postalLabel)} starting with…` }]
      : []),
  ];
  const coverage = coverages.some((option) => option.value === area.coverage) ? area.coverage : 'country';

  return (
    <fieldset className="zone-area">
      <legend>{legend}</legend>
      <div className="shipping-grid">
        <SelectField
          label="Country"
          value={area.country}
          options={[
            { value: '', label: 'Choose a country…' },
            { value: REST_OF_WORLD, label: 'Rest of the world (every other country)' },
            ...countries.map((country) => ({ value: country.code, label: country.name })),
          ]}
          error={at(`${base}/country`, 'The country')}
          onChange={(event) =>
            onChange({ country: event.target.value, coverage: 'country', regions: [], prefixes: '' })
          }
        />
        {rules ? (
          <SelectField
            label="Covers"
            value={coverage}
            options={coverages}
            error={problemOfArea(at, base)}
            onChange={(event) => onChange({ coverage: event.target.value as Coverage })}
          />
        ) : null}
      </div>
      {rules && coverage === 'regions' ? (
        <FieldShell
          label={regionsLabel}
          hint={
            <>
              Hold Ctrl (⌘ on a Mac) to choose several.{' '}
              {area.regions.length > 0
                ? `Chosen: ${area.regions.map((code) => regionName(area.country, code)).join(', ')}.`
                : 'None chosen yet.'}
            </>
          }
          error={at(`${base}/regions`, `A ${inSentence(rules.labels.region)}`)}
        >
          {({ id, describedBy, invalid }) => (
            <select
              id={id}
              multiple
              size={8}
              className="region-select"
              value={area.regions}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              onChange={(event) =>
                onChange({ regions: Array.from(event.target.selectedOptions, (option) => option.value) })
              }
            >
              {regionOptions(rules, consoleLanguage()).map((region) => (
                <option key={region.code} value={region.code}>
                  {region.label}
                </option>
              ))}
            </select>
          )}
        </FieldShell>
      ) : null}
      {rules && coverage === 'postal' ? (
        <TextField
          label={`${postalLabel} prefixes`}
          value={area.prefixes}
          autoComplete="off"
          hint={`Separate them with commas, like 10, 12, 13. The longest matching prefix of any zone wins.`}
          error={at(`${base}/postalCodePrefixes`, 'A prefix')}
          onChange={(event) => onChange({ prefixes: event.target.value })}
        />
      ) : null}
      {onRemove ? (
        <button type="button" className="danger" onClick={onRemove}>
          Remove area {index + 1}
        </button>
      ) : null}
    </fieldset>
  );
}

/** A problem with the area as a whole (`/areas/0`: regions and prefixes both, or one place twice). */
function problemOfArea(at: (pointer: string, field: string) => string | undefined, base: string) {
  const detail = at(base, 'This area');
  const specific = [`${base}/country`, `${base}/regions`, `${base}/postalCodePrefixes`].some((pointer) =>
    at(pointer, ''),
  );
  return specific ? undefined : detail;
}
