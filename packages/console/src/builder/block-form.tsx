/**
 * The selected block's settings, checked by the shared rules as they change (each problem at its
 * field, the server's too), and its place in the tree: move up, down, out of its columns block or
 * into another one, without dragging.
 */
import { findBlock, flattenBlocks, listOf, moveProblem, SPACER_SIZES, type Block } from '@storefront/blocks';
import { useId, useState, type ComponentProps, type ReactNode } from 'react';
import { SelectField, TextAreaField, TextField } from '../ui/components.tsx';
import { issueAt, type Issue } from './issues.ts';
import { blockLabel, fieldLabel, placeLabel, SETTING_LABELS, TYPE_LABELS } from './labels.ts';

export interface Move {
  parentId: string | null;
  index: number;
}

const SIZE_LABELS: Record<string, string> = { sm: 'Small', md: 'Medium', lg: 'Large' };

/** The input of a setting that holds an address: a URL keyboard, no spelling marks. */
const ADDRESS_INPUT = { inputMode: 'url', spellCheck: false } as const;

/** A button that stays focusable when it cannot act (a disabled button would drop the focus). */
function ActionButton({
  disabled,
  onClick,
  children,
  className,
}: {
  disabled: boolean;
  onClick: () => void;
  children: ReactNode;
  className?: string;
}) {
  return (
    <button
      type="button"
      className={className}
      aria-disabled={disabled || undefined}
      onClick={() => {
        if (!disabled) onClick();
      }}
    >
      {children}
    </button>
  );
}

export function BlockInspector({
  blocks,
  blockId,
  issues,
  onSetting,
  onMove,
  onRemove,
}: {
  blocks: Block[];
  blockId: string;
  issues: readonly Issue[];
  onSetting: (id: string, key: string, value: unknown) => void;
  onMove: (id: string, to: Move) => void;
  onRemove: (id: string) => void;
}) {
  const at = findBlock(blocks, blockId);
  const moveIntoId = useId();
  const [into, setInto] = useState('');
  if (!at) return null;
  const { block, parentId, index } = at;
  const settings = block.settings as Record<string, unknown>;
  const siblings = listOf(blocks, parentId) ?? [];
  const error = (key: string) => issueAt(issues, block.id, `settings/${key}`);
  const label = (key: string) => SETTING_LABELS[block.type][key] ?? key;
  const text = (key: string) => {
    const value = settings[key];
    return typeof value === 'string' ? value : '';
  };
  const set = (key: string) => (value: unknown) => onSetting(block.id, key, value);
  /** A one-line text setting's field (`more`: its hint, its kind of input). */
  const textSetting = (
    key: string,
    more?: Pick<ComponentProps<typeof TextField>, 'hint' | 'inputMode' | 'spellCheck'>,
  ) => (
    <TextField
      label={label(key)}
      value={text(key)}
      error={error(key)}
      onChange={(e) => set(key)(e.target.value)}
      {...more}
    />
  );

  const known = new Set(Object.keys(SETTING_LABELS[block.type]).map((key) => `settings/${key}`));
  const blockLevel = issues.filter((i) => i.blockId === block.id && !known.has(i.field));

  const targets = flattenBlocks(blocks).filter(
    (l) =>
      l.block.type === 'columns' &&
      l.block.id !== parentId &&
      moveProblem(blocks, block.id, l.block.id) === null,
  );
  const chosen = targets.find((t) => t.block.id === into) ?? targets[0];
  const parent = parentId === null ? null : findBlock(blocks, parentId);

  let fields: ReactNode;
  switch (block.type) {
    case 'heading':
      fields = (
        <>
          {textSetting('text')}
          <SelectField
            label={label('level')}
            hint="Level 1 is the page's main title; use 2 or 3 for sections."
            value={typeof settings.level === 'number' ? String(settings.level) : ''}
            error={error('level')}
            options={[
              { value: '1', label: 'Level 1 (largest)' },
              { value: '2', label: 'Level 2' },
              { value: '3', label: 'Level 3' },
            ]}
            onChange={(e) => set('level')(Number(e.target.value))}
          />
        </>
      );
      break;
    case 'text':
      fields = (
        <TextAreaField
          label={label('text')}
          hint="Plain text. Line breaks are kept."
          value={text('text')}
          error={error('text')}
          onChange={(e) => set('text')(e.target.value)}
        />
      );
      break;
    case 'image':
      fields = (
        <>
          {textSetting('src', {
            hint: 'An https:// address, or a path on your shop such as /images/hero.jpg.',
            ...ADDRESS_INPUT,
          })}
          {textSetting('alt', {
            hint: 'Describes the image for people who cannot see it. Leave empty if it is decoration only.',
          })}
        </>
      );
      break;
    case 'button':
      fields = (
        <>
          {textSetting('text')}
          {textSetting('href', {
            hint: 'A page of your shop (/collections/sale), an https:// address, mailto: or tel:.',
            ...ADDRESS_INPUT,
          })}
        </>
      );
      break;
    case 'spacer':
      fields = (
        <SelectField
          label={label('size')}
          value={typeof settings.size === 'string' ? settings.size : 'md'}
          error={error('size')}
          options={SPACER_SIZES.map((size) => ({ value: size, label: SIZE_LABELS[size] ?? size }))}
          onChange={(e) => set('size')(e.target.value)}
        />
      );
      break;
    case 'columns':
      fields = (
        <SelectField
          label={label('columns')}
          hint="Blocks inside flow into this many columns, then wrap; phones show one column."
          value={typeof settings.columns === 'number' ? String(settings.columns) : ''}
          error={error('columns')}
          options={Array.from({ length: 12 }, (_, i) => String(i + 1))}
          onChange={(e) => set('columns')(Number(e.target.value))}
        />
      );
      break;
  }

  return (
    <div className="inspector">
      <p className="muted">
        {TYPE_LABELS[block.type]} block <code>{block.id}</code>, position {index + 1} of {siblings.length} in{' '}
        {placeLabel(blocks, parentId)}.
      </p>
      {blockLevel.length > 0 ? (
        <div className="banner error">
          <ul>
            {blockLevel.map((issue) => (
              <li key={issue.field + issue.detail}>
                {fieldLabel(block, issue.field)} {issue.detail}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {fields}

      <fieldset className="move-controls">
        <legend>Position</legend>
        <div className="actions">
          <ActionButton
            disabled={index === 0}
            onClick={() => onMove(block.id, { parentId, index: index - 1 })}
          >
            Move up
          </ActionButton>
          <ActionButton
            disabled={index >= siblings.length - 1}
            onClick={() => onMove(block.id, { parentId, index: index + 1 })}
          >
            Move down
          </ActionButton>
          {parent ? (
            <ActionButton
              disabled={moveProblem(blocks, block.id, parent.parentId) !== null}
              onClick={() => onMove(block.id, { parentId: parent.parentId, index: parent.index + 1 })}
            >
              Move out of {blockLabel(parent.block)}
            </ActionButton>
          ) : null}
        </div>
        {targets.length > 0 ? (
          <div className="move-into">
            <label htmlFor={moveIntoId}>Move into</label>
            <select id={moveIntoId} value={chosen?.block.id ?? ''} onChange={(e) => setInto(e.target.value)}>
              {targets.map((t) => (
                <option key={t.block.id} value={t.block.id}>
                  {blockLabel(t.block)}
                </option>
              ))}
            </select>
            <button
              type="button"
              onClick={() => {
                if (chosen) onMove(block.id, { parentId: chosen.block.id, index: Number.MAX_SAFE_INTEGER });
              }}
            >
              Move into columns
            </button>
          </div>
        ) : null}
      </fieldset>

      <button type="button" className="danger" onClick={() => onRemove(block.id)}>
        Remove {TYPE_LABELS[block.type].toLowerCase()} block
      </button>
    </div>
  );
}
