/**
 * A smart collection's rules: the fields and the operators each takes (the server's rule: tag and
 * title eq|contains, price eq|gt|lt), the rules in words for the list and the preview, and the
 * editor's draft of them (a price as minor units or a typing problem) with what it sends. No React.
 */
import { formatMoney } from '../../ui/money.ts';
import type { Condition, Rules } from '../catalog-parts.tsx';

export type Field = Condition['field'];
export type Op = Condition['op'];

export const FIELDS: { value: Field; label: string }[] = [
  { value: 'tag', label: 'Tag' },
  { value: 'title', label: 'Title' },
  { value: 'priceAmount', label: 'Price' },
];

/** The operators each field takes (the server's rule: tag and title eq|contains, price eq|gt|lt). */
export const OPS: Record<Field, { value: Op; label: string }[]> = {
  tag: [
    { value: 'eq', label: 'is equal to' },
    { value: 'contains', label: 'contains' },
  ],
  title: [
    { value: 'eq', label: 'is equal to' },
    { value: 'contains', label: 'contains' },
  ],
  priceAmount: [
    { value: 'eq', label: 'is equal to' },
    { value: 'gt', label: 'is greater than' },
    { value: 'lt', label: 'is less than' },
  ],
};

/** "Tag is equal to summer and Price is less than $50.00". */
export function describeRules(rules: Rules, currency: string): string {
  return rules.conditions
    .map((condition) => {
      const field = FIELDS.find((f) => f.value === condition.field)?.label ?? condition.field;
      const op = OPS[condition.field].find((o) => o.value === condition.op)?.label ?? condition.op;
      const value =
        condition.field === 'priceAmount'
          ? formatMoney(Number(condition.value), currency)
          : `“${condition.value}”`;
      return `${field} ${op} ${value}`;
    })
    .join(rules.match === 'all' ? ' and ' : ' or ');
}

export interface ConditionDraft {
  key: string;
  field: Field;
  op: Op;
  /** The value of tag and title conditions. */
  text: string;
  /** The value of price conditions, in minor units. */
  amount: number | null;
  amountProblem: string | null;
}

export interface RulesDraft {
  match: Rules['match'];
  conditions: ConditionDraft[];
}

let conditionKeys = 0;
export const newCondition = (): ConditionDraft => ({
  key: `c${++conditionKeys}`,
  field: 'tag',
  op: 'eq',
  text: '',
  amount: null,
  amountProblem: null,
});

export function rulesDraft(rules: Rules | null): RulesDraft {
  if (!rules) return { match: 'all', conditions: [newCondition()] };
  return {
    match: rules.match,
    conditions: rules.conditions.map((condition) => ({
      ...newCondition(),
      field: condition.field,
      op: condition.op,
      text: condition.field === 'priceAmount' ? '' : String(condition.value),
      amount: condition.field === 'priceAmount' ? Number(condition.value) : null,
    })),
  };
}

/** The rules to send, or null while a condition is incomplete. */
export function toRules(draft: RulesDraft): Rules | null {
  const conditions: Condition[] = [];
  for (const c of draft.conditions) {
    if (c.field === 'priceAmount') {
      if (c.amount === null || c.amountProblem) return null;
      conditions.push({ field: c.field, op: c.op, value: c.amount });
    } else {
      if (c.text.trim() === '') return null;
      conditions.push({ field: c.field, op: c.op, value: c.text.trim() });
    }
  }
  return conditions.length > 0 ? { match: draft.match, conditions } : null;
}
