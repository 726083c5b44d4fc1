/**
 * Helpers of doc-examples.test.ts: the code blocks of a document, its walkthrough (the `curl`
 * commands of its ```sh blocks and the requests of its ```http blocks, in the document's order),
 * and a session that runs the walkthrough as a reader would, filling each placeholder
 * (`<cartId>`, `ct_…`) with what an earlier answer returned. Not a test file itself.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { run } from './doc-program.test-support.ts';
import { jpeg } from './server.test-support.ts';

export const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface Block {
  document: string;
  /** The info string's first word (`sh`, `http`, `ts`). */
  language: string;
  /** The info string's other words: `response` (an http block that shows an answer), `fragment`. */
  marks: string[];
  code: string;
  line: number;
}

export function blocksOf(document: string): Block[] {
  const text = fs.readFileSync(path.join(ROOT, document), 'utf8');
  return [...text.matchAll(/^( *)```(\w*)([^\n]*)\n([\s\S]*?)^\1```$/gm)].map((match) => ({
    document,
    language: match[2]!,
    marks: match[3]!.trim().split(/\s+/).filter(Boolean),
    // Blocks indented in a list: their lines lose the indentation.
    code: match[4]!
      .split('\n')
      .map((line) => line.slice(match[1]!.length))
      .join('\n'),
    line: text.slice(0, match.index).split('\n').length,
  }));
}

/** A command of a shell block, the line it starts on (0 = the block's first), and the comment under it. */
export interface Command {
  text: string;
  line: number;
  /** The comment lines right under the command (`# {"name": …}`: what it answers), `#` dropped. */
  comment: string;
}

/**
 * A shell block's commands, as bash reads them: a line ends a command unless it ends in `\\` or
 * is inside quotes (a JSON body over two lines); comments and blank lines are not commands.
 */
export function commandsOf(code: string): Command[] {
  const lines = code.split('\n');
  const commands: Command[] = [];
  let text = '';
  let quote = '';
  let line = 0;
  let start = 0;
  const end = () => {
    if (text.trim() === '') return;
    // The comment lines right under the command's last line.
    let comment = '';
    for (let next = line + 1; lines[next]?.trim().startsWith('#'); next++)
      comment += `${lines[next]!.trim().slice(1).trim()}\n`;
    commands.push({ text: text.trim(), line: start, comment });
  };
  for (let i = 0; i < code.length; i++) {
    const char = code[i]!;
    if (quote === '' && char === '\\' && code[i + 1] === '\n') {
      i++; // a continuation line: joined with a space
      line++;
      text += ' ';
      while (code[i + 1] === ' ') i++;
    } else if (quote === '' && char === '#' && /(^|\s)$/.test(text)) {
      while (i + 1 < code.length && code[i + 1] !== '\n') i++; // a comment, to the end of the line
    } else if (quote === '' && char === '\n') {
      end();
      text = '';
      start = ++line;
    } else {
      if (quote === '' && (char === "'" || char === '"')) quote = char;
      else if (char === quote) quote = '';
      if (char === '\n') line++;
      text += char;
    }
  }
  end();
  return commands;
}

/** One request of a walkthrough: a `curl` command, or a request of an http block. */
export interface Step {
  document: string;
  line: number;
  kind: 'curl' | 'http';
  /** The curl command, or the request as written (request line, headers, body). */
  text: string;
  /** curl: the block's and earlier blocks' `export NAME=…` lines, in order. */
  exports: string[];
  /** The answer the document shows: after `→` in an http block, in the comment under a command. */
  shown?: { status?: number; body: string };
}

/** A shown answer: `[→] [status] {json…}` (trailing words after the JSON allowed). */
function shownAnswer(text: string): Step['shown'] {
  const match = /^(?:→ )?(\d{3})?[^{[]*?([{[][\s\S]*)?$/.exec(text.trim());
  if (!match?.[1] && !match?.[2]) return undefined;
  return { ...(match[1] ? { status: Number(match[1]) } : {}), body: match[2] ?? '' };
}

const REQUEST_LINE = /^(GET|POST|PUT|PATCH|DELETE) \/\S*/;

/** The requests of an http block: a request line, headers, a JSON body, `→ status …` lines. */
function requestsOf(block: Block): Step[] {
  const steps: Step[] = [];
  let current: Step | null = null;
  let responding = false;
  block.code.split('\n').forEach((line, index) => {
    if (REQUEST_LINE.test(line)) {
      current = {
        document: block.document,
        line: block.line + 1 + index,
        kind: 'http',
        text: line,
        exports: [],
      };
      steps.push(current);
      responding = false;
    } else if (line.startsWith('→')) {
      assert.ok(current, `${block.document}:${block.line}: an answer before any request`);
      current.shown = shownAnswer(line);
      responding = true;
    } else if (responding && current?.shown && line.trim() !== '') {
      current.shown.body += `\n${line}`;
    } else if (line.trim() !== '' && !responding) {
      assert.ok(current, `${block.document}:${block.line}: neither a request nor marked \`http response\``);
      current.text += `\n${line}`;
    }
  });
  return steps;
}

/** A document's walkthrough: its curl commands and http requests, in order. */
export function walkthroughOf(blocks: Block[]): Step[] {
  const exports: string[] = [];
  const steps: Step[] = [];
  for (const block of blocks) {
    if (block.language === 'http' && !block.marks.includes('response')) steps.push(...requestsOf(block));
    if (block.language !== 'sh') continue;
    for (const { text, line, comment } of commandsOf(block.code)) {
      if (text.startsWith('export ')) exports.push(text);
      if (!text.startsWith('curl ')) continue;
      const shown = shownAnswer(comment);
      steps.push({
        document: block.document,
        line: block.line + 1 + line,
        kind: 'curl',
        text,
        exports: [...exports],
        ...(shown ? { shown } : {}),
      });
    }
  }
  return steps;
}

/** What a request answered. */
export interface Exchange {
  /** `POST /storefront/v1/carts` (the path and query, without the host). */
  request: string;
  status: number;
  headers: Headers;
  body: unknown;
}

/** How a placeholder gets its value: from the session (earlier answers, givens), per step. */
export type Source = (session: Session, step: Step) => string | Promise<string>;

/** Placeholders still in a command after filling: `<cartId>`, `ct_…`, `{id}`, `"…"` as an id. */
const UNFILLED = /<[A-Za-z][\w' ]*>|\b[a-z]{2}_…|\{id\}/;

/**
 * A reader's session through one document: the requests it made and what they answered, so that
 * a later command's placeholder can be filled from an earlier answer.
 */
export class Session {
  readonly exchanges: Exchange[] = [];
  readonly baseUrl: string;
  /** Values every document shares (`pk_…`, `st_…`, `http://127.0.0.1:3000`), replaced first. */
  private readonly common: [string, string][];
  /** This document's placeholders, in the order they are filled. */
  private readonly placeholders: Record<string, Source>;
  /** Where curl runs (the files an upload names are made there). */
  private readonly workDir: string;
  /** Values the test set up before the walkthrough (an order to ship, a cart). */
  readonly given: Record<string, string>;

  constructor(options: {
    baseUrl: string;
    common: [string, string][];
    placeholders: Record<string, Source>;
    workDir: string;
    given: Record<string, string>;
  }) {
    ({
      baseUrl: this.baseUrl,
      common: this.common,
      placeholders: this.placeholders,
      workDir: this.workDir,
      given: this.given,
    } = options);
  }

  /**
   * The tools the docs' commands use besides curl and bash: `uuidgen` (macOS and util-linux have
   * it; where this machine lacks it, one that prints the kernel's random UUID stands in).
   */
  provideTools(): void {
    const bin = path.join(this.workDir, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    if (!(process.env.PATH ?? '').split(':').some((dir) => fs.existsSync(path.join(dir, 'uuidgen')))) {
      fs.writeFileSync(path.join(bin, 'uuidgen'), '#!/bin/sh\ncat /proc/sys/kernel/random/uuid\n', {
        mode: 0o755,
      });
    }
  }

  /** The newest answer to a request that contains `request` (`POST /carts`), or the `nth`. */
  answer(request: string, nth?: number): Exchange {
    const matching = this.exchanges.filter((exchange) => exchange.request.includes(request));
    const found = nth === undefined ? matching.at(-1) : matching[nth];
    assert.ok(found, `no earlier answer to "${request}" in this walkthrough`);
    return found;
  }

  private value(request: string, dotPath: string, nth?: number): unknown {
    let value: unknown = this.answer(request, nth).body;
    for (const key of dotPath.split('.')) value = (value as Record<string, unknown> | undefined)?.[key];
    return value;
  }

  /** A value of an earlier answer's body, by a dot path (`items.0.id`). */
  json(request: string, dotPath: string, nth?: number): string {
    const value = this.value(request, dotPath, nth);
    assert.ok(
      typeof value === 'string' || typeof value === 'number',
      `${request} → ${dotPath} is ${String(value)}`,
    );
    return String(value);
  }

  /** The first element of an earlier answer's list (a dot path) that passes `test`, by its `key`. */
  find(
    request: string,
    listPath: string,
    test: (item: Record<string, unknown>) => boolean,
    key = 'id',
  ): string {
    const list = this.value(request, listPath);
    assert.ok(Array.isArray(list), `${request} → ${listPath} is a list`);
    const found = (list as Record<string, unknown>[]).find(test);
    assert.ok(found, `${request} → ${listPath} has no item that passes ${test.toString()}`);
    return String(found[key]);
  }

  header(request: string, name: string): string {
    const value = this.answer(request).headers.get(name);
    assert.ok(value, `${request} answered without ${name}`);
    return value;
  }

  async fill(step: Step, text: string): Promise<string> {
    for (const [placeholder, value] of this.common) text = text.replaceAll(placeholder, value);
    for (const [placeholder, source] of Object.entries(this.placeholders)) {
      if (text.includes(placeholder)) text = text.replaceAll(placeholder, await source(this, step));
    }
    const left = UNFILLED.exec(text);
    assert.ok(
      !left,
      `${step.document}:${step.line}: nothing fills ${left?.[0]} (declare it in PLACEHOLDERS)`,
    );
    return text;
  }

  /** Runs one step as written, with its placeholders filled; records and returns its answer. */
  async run(step: Step): Promise<Exchange> {
    const exchange = step.kind === 'curl' ? await this.curl(step) : await this.http(step);
    this.exchanges.push(exchange);
    return exchange;
  }

  private async curl(step: Step): Promise<Exchange> {
    const exports = await Promise.all(step.exports.map((line) => this.fill(step, line)));
    // A file the command uploads (`-F file=@jacket.jpg`): a small real picture, as the reader has.
    for (const [, name] of step.text.matchAll(/=@(\S+\.jpg)\b/g)) {
      fs.writeFileSync(path.join(this.workDir, name!), await jpeg());
    }
    // A CSV file an import uploads (`-F file=@products_export.csv`): a small Shopify product file.
    for (const [, name] of step.text.matchAll(/=@(\S+\.csv)\b/g)) {
      fs.writeFileSync(
        path.join(this.workDir, name!),
        'Handle,Title,Variant Price\ndoc-tote,Doc tote,19.00\n',
      );
    }
    // The command as written; the answer's headers and body go to files, and curl prints the
    // method, the URL and the status it ended with.
    const script = [
      'set -u',
      ...exports,
      `curl() { command curl -sS -D .headers -o .body -w '%{method} %{url_effective} %{http_code}' "$@"; }`,
      await this.fill(step, step.text),
    ].join('\n');
    const env = { PATH: `${path.join(this.workDir, 'bin')}:${process.env.PATH}`, HOME: process.env.HOME };
    const { code, stdout, stderr } = await run(path.join(this.workDir, 'curl'), ['bash', '-c', script], env);
    assert.equal(code, 0, `${step.document}:${step.line}: ${stderr}`);
    const [method, url, status] = stdout.trim().split(' ');
    const headers = new Headers();
    const head =
      fs
        .readFileSync(path.join(this.workDir, '.headers'), 'utf8')
        .split(/\r?\n\r?\n/)
        .at(-2) ?? '';
    for (const line of head.split(/\r?\n/).slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    // `curl -i` writes the headers into the body too.
    const raw = fs
      .readFileSync(path.join(this.workDir, '.body'), 'utf8')
      .replace(/^HTTP\/[\s\S]*?\r\n\r\n/, '');
    return {
      request: `${method} ${url!.replace(this.baseUrl, '')}`,
      status: Number(status),
      headers,
      body: parsed(raw),
    };
  }

  private async http(step: Step): Promise<Exchange> {
    const [requestLine, ...rest] = (await this.fill(step, step.text)).split('\n');
    const [, method, target, inline] = /^(\w+) (\S+)\s*(.*)$/.exec(requestLine!)!;
    const headers = new Headers();
    const bodyLines = inline ? [inline] : [];
    for (const line of rest) {
      const header = /^([A-Za-z-]+): (.*)$/.exec(line);
      if (header && bodyLines.length === 0) headers.set(header[1]!, header[2]!);
      else bodyLines.push(line);
    }
    const body = bodyLines.join('\n').trim();
    if (body) {
      assert.doesNotThrow(
        () => JSON.parse(body),
        `${step.document}:${step.line}: the body is not JSON: ${body}`,
      );
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    // What every http block of the docs leaves out: the credentials its API takes.
    if (target!.startsWith('/admin/') && !headers.has('authorization'))
      headers.set('authorization', this.given.staffAuthorization!);
    if (target!.startsWith('/storefront/') && !headers.has('x-publishable-key'))
      headers.set('x-publishable-key', this.given.publishableKey!);
    const response = await fetch(`${this.baseUrl}${target}`, { method, headers, ...(body ? { body } : {}) });
    return {
      request: `${method} ${target}`,
      status: response.status,
      headers: response.headers,
      body: parsed(await response.text()),
    };
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The answer matches what the document shows of it: every field the shown JSON names is in the
 * answer; when the shown JSON is complete (no `…`), every value it shows is the answer's too.
 */
export function assertShown(shown: string, answer: unknown, message: string): void {
  const keys = new Set<string>();
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        keys.add(key);
        collect(inner);
      }
    }
  };
  collect(answer);
  const missing = [...shown.matchAll(/"(\w+)"\s*:/g)].map(([, key]) => key!).filter((key) => !keys.has(key));
  assert.deepEqual(missing, [], `fields the document shows are not in the answer: ${message}`);
  const complete = /…|</.test(shown) ? undefined : parsed(shown);
  if (typeof complete === 'object') assert.partialDeepStrictEqual(answer, complete, message);
}
