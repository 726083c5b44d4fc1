/**
 * The rules of a region tree, once (decision `front-ends-on-the-public-api`): the server validates every draft with
 * `regionProblems`, and the console's builder checks its draft with the same function before it
 * saves, so both name the same problems at the same JSON Pointers.
 */
import { charLength, urlProblem, type UrlUse } from './text.ts';
import { BLOCK_TYPES, SPACER_SIZES, type BlockProblem, type BlockType } from './types.ts';

/** Limits of a region tree (spec section 8 and decision `problem-catalogue`); docs/content.md lists them. */
export const REGION_LIMITS = {
  /** Top-level blocks are depth 1. */
  maxDepth: 4,
  maxNodes: 50,
  /** Children of one columns block. The top-level list is bounded by maxNodes only. */
  maxChildren: 12,
  maxIdLength: 64,
  maxStringLength: 5000,
  /** The blocks array as compact JSON (JSON.stringify), in UTF-8 bytes. */
  maxBytes: 64 * 1024,
  /** At most this many problems are listed in one answer. */
  maxErrors: 100,
} as const;

const NODE_FIELDS = new Set(['id', 'type', 'settings', 'children']);

type SettingCheck = (value: unknown) => string | null;

export interface SettingRule {
  required: boolean;
  check: SettingCheck;
}

function stringProblem(value: unknown, minLength: number): string | null {
  if (typeof value !== 'string') return 'must be a string';
  const length = charLength(value);
  if (length < minLength) return 'must not be empty';
  if (length > REGION_LIMITS.maxStringLength)
    return `must be at most ${REGION_LIMITS.maxStringLength} characters (it has ${length})`;
  return null;
}

const text =
  (minLength: number): SettingCheck =>
  (value) =>
    stringProblem(value, minLength);

const url =
  (use: UrlUse): SettingCheck =>
  (value) =>
    typeof value === 'string' ? (urlProblem(value, use) ?? stringProblem(value, 1)) : 'must be a string';

const integer =
  (min: number, max: number): SettingCheck =>
  (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
      ? null
      : `must be an integer from ${min} to ${max}`;

const oneOf =
  (values: readonly string[]): SettingCheck =>
  (value) =>
    typeof value === 'string' && values.includes(value) ? null : `must be one of ${values.join(', ')}`;

const required = (check: SettingCheck): SettingRule => ({ required: true, check });
const optional = (check: SettingCheck): SettingRule => ({ required: false, check });

/** Each block type's own settings; any other key is refused. */
export const BLOCK_SETTINGS: Record<BlockType, Record<string, SettingRule>> = {
  heading: { text: required(text(1)), level: required(integer(1, 3)) },
  text: { text: required(text(1)) },
  image: { src: required(url('image')), alt: required(text(0)) },
  button: { text: required(text(1)), href: required(url('link')) },
  spacer: { size: optional(oneOf(SPACER_SIZES)) },
  columns: { columns: required(integer(1, 12)) },
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isBlockType(value: unknown): value is BlockType {
  return typeof value === 'string' && (BLOCK_TYPES as readonly string[]).includes(value);
}

/** One JSON Pointer reference token (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function pointerToken(name: string | number): string {
  return String(name).replaceAll('~', '~0').replaceAll('/', '~1');
}

class Problems {
  readonly list: BlockProblem[] = [];
  add(pointer: string, detail: string): void {
    if (this.list.length < REGION_LIMITS.maxErrors) this.list.push({ pointer, detail });
  }
  get full(): boolean {
    return this.list.length >= REGION_LIMITS.maxErrors;
  }
}

class TreeCheck {
  nodes = 0;
  readonly ids = new Map<string, string>();
  readonly problems: Problems;
  constructor(problems: Problems) {
    this.problems = problems;
  }

  list(items: unknown[], at: string, depth: number): void {
    for (let i = 0; i < items.length && !this.problems.full; i++) this.node(items[i], `${at}/${i}`, depth);
  }

  node(value: unknown, at: string, depth: number): void {
    this.nodes++;
    const { problems } = this;
    if (depth > REGION_LIMITS.maxDepth) {
      problems.add(
        at,
        `is nested ${depth} levels deep; at most ${REGION_LIMITS.maxDepth} levels are allowed`,
      );
      return;
    }
    if (!isObject(value)) {
      problems.add(at, 'must be a block object {id, type, settings}');
      return;
    }
    for (const key of Object.keys(value)) {
      if (!NODE_FIELDS.has(key))
        problems.add(`${at}/${pointerToken(key)}`, 'is not a known field of a block');
    }
    this.id(value.id, `${at}/id`);

    const type = value.type;
    if (type === undefined) problems.add(`${at}/type`, 'is required');
    else if (!isBlockType(type)) problems.add(`${at}/type`, `must be one of ${BLOCK_TYPES.join(', ')}`);

    const settings = value.settings;
    if (settings === undefined) problems.add(`${at}/settings`, 'is required');
    else if (!isObject(settings)) problems.add(`${at}/settings`, 'must be an object');
    else if (isBlockType(type)) this.settings(type, settings, `${at}/settings`);

    if (Object.hasOwn(value, 'children')) {
      const children = value.children;
      if (isBlockType(type) && type !== 'columns') {
        problems.add(`${at}/children`, `is not allowed: only columns blocks have children (this is ${type})`);
      } else if (type === 'columns') {
        if (!Array.isArray(children)) {
          problems.add(`${at}/children`, 'must be an array of blocks');
        } else {
          if (children.length > REGION_LIMITS.maxChildren) {
            problems.add(
              `${at}/children`,
              `has ${children.length} children; a block has at most ${REGION_LIMITS.maxChildren}`,
            );
          }
          this.list(children, `${at}/children`, depth + 1);
        }
      }
    }
  }

  id(value: unknown, at: string): void {
    if (value === undefined) return this.problems.add(at, 'is required');
    if (typeof value !== 'string') return this.problems.add(at, 'must be a string');
    if (value === '') return this.problems.add(at, 'must not be empty');
    if (charLength(value) > REGION_LIMITS.maxIdLength)
      return this.problems.add(at, `must be at most ${REGION_LIMITS.maxIdLength} characters`);
    const first = this.ids.get(value);
    if (first !== undefined) return this.problems.add(at, `repeats the id of ${first}; ids must be unique`);
    this.ids.set(value, at.slice(0, -'/id'.length));
  }

  settings(type: BlockType, settings: Record<string, unknown>, at: string): void {
    const rules = BLOCK_SETTINGS[type];
    for (const key of Object.keys(settings)) {
      if (!Object.hasOwn(rules, key)) {
        const known = Object.keys(rules);
        this.problems.add(
          `${at}/${pointerToken(key)}`,
          `is not a setting of ${type} blocks (${known.length > 0 ? `known: ${known.join(', ')}` : 'none'})`,
        );
      }
    }
    for (const [key, rule] of Object.entries(rules)) {
      const value = settings[key];
      if (value === undefined) {
        if (rule.required) this.problems.add(`${at}/${key}`, 'is required');
        continue;
      }
      const problem = rule.check(value);
      if (problem) this.problems.add(`${at}/${key}`, problem);
    }
  }
}

/** A one-line summary of the problems, for a problem's `detail`. */
export function summarizeProblems(errors: readonly BlockProblem[]): string {
  const first = errors[0];
  if (first === undefined) return 'The region is valid.';
  const where = first.pointer === '/' ? 'the body' : first.pointer.slice(1).replaceAll('/', '.');
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `The region is invalid: ${where} ${first.detail}${more}.`;
}

const utf8 = new TextEncoder();

/**
 * Every problem of a region draft body `{blocks}` (up to maxErrors), each with the JSON Pointer of
 * the offending node or field, e.g. `/blocks/2/children/0/settings/href`; empty when it is valid.
 */
export function regionProblems(body: unknown): BlockProblem[] {
  const problems = new Problems();
  if (!isObject(body)) {
    problems.add('/', 'must be an object {blocks: [...]}');
    return problems.list;
  }
  for (const key of Object.keys(body)) {
    if (key !== 'blocks') problems.add(`/${pointerToken(key)}`, 'is not a known field');
  }
  const blocks = body.blocks;
  if (blocks === undefined) {
    problems.add('/blocks', 'is required');
  } else if (!Array.isArray(blocks)) {
    problems.add('/blocks', 'must be an array of blocks');
  } else {
    const bytes = utf8.encode(JSON.stringify(blocks)).byteLength;
    if (bytes > REGION_LIMITS.maxBytes) {
      problems.add(
        '/blocks',
        `is ${bytes} bytes as JSON; a region is at most ${REGION_LIMITS.maxBytes} bytes`,
      );
    }
    const tree = new TreeCheck(problems);
    tree.list(blocks, '/blocks', 1);
    if (tree.nodes > REGION_LIMITS.maxNodes) {
      problems.add(
        '/blocks',
        `has ${tree.nodes} blocks in all; a region has at most ${REGION_LIMITS.maxNodes}`,
      );
    }
  }
  return problems.list;
}
