/**
 * A smart collection's rules and their live preview: the conditions (field, operator, value; a
 * price as a decimal in the store currency), all or any, and which products the rules match now,
 * asked of the server once the typing settles (the same rule engine the collection uses).
 */
import { Link } from 'react-router';
import { useCollectionPreview } from '../../data/collections.ts';
import { SelectField, StatusBadge, TextField } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import { fieldMessage, toFormProblem, type FormProblem } from '../../ui/problems.ts';
import { useDebounced } from '../../ui/search.tsx';
import { priceRange, Thumb, type Rules } from '../catalog-parts.tsx';
import {
  describeRules,
  FIELDS,
  newCondition,
  OPS,
  toRules,
  type ConditionDraft,
  type Field,
  type Op,
  type RulesDraft,
} from './rules.ts';

export function SmartRules({
  rules,
  onChange,
  currency,
  saveProblem,
}: {
  rules: RulesDraft;
  onChange: (rules: RulesDraft) => void;
  currency: string;
  saveProblem: FormProblem | null;
}) {
  const complete = toRules(rules);
  const settled = useDebounced(complete ? JSON.stringify(complete) : null, 400);
  const preview = useCollectionPreview(settled);
  const previewProblem = preview.isError ? toFormProblem(preview.error) : null;
  const problem = saveProblem ?? previewProblem;

  const updateCondition = (key: string, changes: Partial<ConditionDraft>) =>
    onChange({
      ...rules,
      conditions: rules.conditions.map((c) => (c.key === key ? { ...c, ...changes } : c)),
    });

  return (
    <div className="smart-layout">
      <section className="panel" aria-labelledby="collection-rules">
        <h2 id="collection-rules">Conditions</h2>
        <SelectField
          label="Products must match"
          value={rules.match}
          options={[
            { value: 'all', label: 'all conditions' },
            { value: 'any', label: 'any condition' },
          ]}
          onChange={(event) => onChange({ ...rules, match: event.target.value as Rules['match'] })}
        />
        {rules.conditions.map((condition, index) => {
          const base = `/rules/conditions/${index}`;
          const name = `Condition ${index + 1}`;
          return (
            <fieldset key={condition.key} className="condition">
              <legend>{name}</legend>
              <div className="condition-grid">
                <SelectField
                  label="Field"
                  value={condition.field}
                  options={FIELDS}
                  error={fieldMessage(problem, `${base}/field`, 'The field')}
                  onChange={(event) => {
                    const field = event.target.value as Field;
                    const op = OPS[field].some((o) => o.value === condition.op) ? condition.op : 'eq';
                    updateCondition(condition.key, { field, op });
                  }}
                />
                <SelectField
                  label="Operator"
                  value={condition.op}
                  options={OPS[condition.field]}
                  error={fieldMessage(problem, `${base}/op`, 'The operator')}
                  onChange={(event) => updateCondition(condition.key, { op: event.target.value as Op })}
                />
                {condition.field === 'priceAmount' ? (
                  <MoneyField
                    label="Amount"
                    currency={currency}
                    value={condition.amount}
                    hint="Compared with the product's lowest variant price."
                    error={fieldMessage(problem, `${base}/value`, 'The amount')}
                    onChange={(amount, amountProblem) =>
                      updateCondition(condition.key, { amount, amountProblem })
                    }
                  />
                ) : (
                  <TextField
                    label="Value"
                    value={condition.text}
                    maxLength={200}
                    hint={condition.field === 'tag' ? 'Any case: Summer matches summer.' : 'Any case.'}
                    error={fieldMessage(problem, `${base}/value`, 'The value')}
                    onChange={(event) => updateCondition(condition.key, { text: event.target.value })}
                  />
                )}
              </div>
              <button
                type="button"
                className="danger"
                disabled={rules.conditions.length === 1}
                onClick={() =>
                  onChange({ ...rules, conditions: rules.conditions.filter((c) => c.key !== condition.key) })
                }
              >
                Remove condition {index + 1}
              </button>
            </fieldset>
          );
        })}
        <button
          type="button"
          disabled={rules.conditions.length >= 20}
          onClick={() => onChange({ ...rules, conditions: [...rules.conditions, newCondition()] })}
        >
          Add condition
        </button>
        {rules.conditions.length >= 20 ? (
          <p className="hint">A collection takes at most 20 conditions.</p>
        ) : null}
      </section>

      <section className="panel preview" aria-labelledby="collection-preview">
        <h2 id="collection-preview">Preview</h2>
        <div role="status" className="preview-summary">
          {complete === null ? (
            <p className="muted">Complete every condition to see which products match.</p>
          ) : preview.isPending || settled !== JSON.stringify(complete) ? (
            <p className="muted">Finding matching products…</p>
          ) : preview.isError ? (
            <p>The preview is not available: {previewProblem?.message}</p>
          ) : (
            <p>
              <strong>
                {preview.data.total} product{preview.data.total === 1 ? '' : 's'}
              </strong>{' '}
              match{preview.data.total === 1 ? 'es' : ''} {describeRules(complete, currency)}.
              {preview.data.total > preview.data.items.length
                ? ` The first ${preview.data.items.length} are shown.`
                : ''}
            </p>
          )}
        </div>
        {complete !== null && preview.data && preview.data.items.length > 0 ? (
          <ul className="preview-list" aria-label="Matching products">
            {preview.data.items.map((product) => (
              <li key={product.id}>
                <Thumb image={product.image} />
                <span className="member-title">
                  <Link to={`/products/${product.id}`}>{product.title}</Link>{' '}
                  {product.status === 'active' ? null : <StatusBadge status={product.status} />}
                </span>
                <span className="muted">{priceRange(product)}</span>
              </li>
            ))}
          </ul>
        ) : null}
        <p className="hint">
          Drafts and archived products match too, but only active ones appear in the shop.
        </p>
      </section>
    </div>
  );
}
