/**
 * `node scripts/check-decisions.ts` (part of `npm run check`): decisions are cited by their slugs
 * (docs/decisions/README.md).
 *
 * 1. No tracked file but CHANGELOG.md cites a decision by a design number ("D" and a number: in
 *    brackets, after "DESIGN", with a possessive, in a list or a range of them): such numbers point
 *    outside the repository.
 * 2. Every slug cited (decision `slug`, decisions `a` and `b`, or a link to
 *    docs/decisions/page.md#slug) is a `## slug` heading of docs/decisions/, on that page when linked.
 *
 * Exits 1 with one `file:line: problem` per violation.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A design number where it reads as a citation; never inside a word, a hex colour or an id. */
const NUMBER = /(?<![\w#.$-])D[1-9][0-9]?(?![\w-])/g;
const BEFORE = /(?:\(|DESIGN\s+|\bdecisions?\s+|\bD[1-9][0-9]?\s*[/–—,-]\s*)$/;
const AFTER = /^(?:\)|['’]s\b|\s*[/–—-]\s*D[1-9]|\s*,\s*D[1-9])/;
/** "decision `a`", "decisions `a`, `b` and `c`", with or without Markdown links. */
const CITED = /\bdecisions?\s+((?:\[?`[a-z0-9-]+`\]?(?:\([^)\s]*\))?(?:\s*,\s*|\s+and\s+)?)+)/gi;
const SLUG = /`([a-z0-9-]+)`/g;
/** This check and its test, whose examples and planted files cite on purpose. */
const OWN = new Set(['scripts/check-decisions.ts', 'scripts/check-decisions.test.ts']);
const LINK = /\]\(((?:\.\.?\/)*(?:docs\/)?decisions\/)?([a-z0-9-]+\.md)?#([a-z0-9-]+)\)/g;

/** Slug → page (file name) of every `## slug` heading in docs/decisions/. */
export function decisionSlugs(root: string): Map<string, string> {
  const slugs = new Map<string, string>();
  const dir = path.join(root, 'docs/decisions');
  for (const page of fs.readdirSync(dir)) {
    if (!page.endsWith('.md') || page === 'README.md') continue;
    for (const line of fs.readFileSync(path.join(dir, page), 'utf8').split('\n')) {
      const heading = /^## ([a-z0-9-]+)\s*$/.exec(line);
      if (heading) slugs.set(heading[1]!, page);
    }
  }
  return slugs;
}

/** The problems of `files` (paths relative to `root`), as `file:line: problem`. */
export function checkDecisions(root: string, files: string[]): string[] {
  const slugs = decisionSlugs(root);
  const problems: string[] = [];
  for (const file of files) {
    if (file === 'CHANGELOG.md' || file.endsWith('package-lock.json') || OWN.has(file)) continue;
    const full = path.join(root, file);
    if (!fs.existsSync(full) || !fs.statSync(full).isFile()) continue;
    const bytes = fs.readFileSync(full);
    if (bytes.includes(0)) continue;
    const inDecisions = file.startsWith('docs/decisions/');
    bytes
      .toString('utf8')
      .split('\n')
      .forEach((line, index) => {
        const at = `${file}:${index + 1}`;
        for (const match of line.matchAll(NUMBER)) {
          const before = line.slice(0, match.index);
          const after = line.slice(match.index + match[0].length);
          if (BEFORE.test(before) || AFTER.test(after))
            problems.push(`${at}: cites the design number ${match[0]}; cite the decision's slug`);
        }
        for (const cited of line.matchAll(CITED))
          for (const [, slug] of cited[1]!.matchAll(SLUG))
            if (!slugs.has(slug!))
              problems.push(`${at}: decision \`${slug}\` is no heading in docs/decisions/`);
        for (const [, dir, page, slug] of line.matchAll(LINK)) {
          const linksDecisions = dir !== undefined || (inDecisions && page !== undefined);
          if (!linksDecisions || !page || page === 'README.md') continue;
          if (slugs.get(slug!) !== page)
            problems.push(`${at}: link to ${page}#${slug}, which is no decision heading of that page`);
        }
      });
  }
  return problems;
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..');
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  const problems = checkDecisions(root, files);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`${problems.length} decision citation problem(s); see docs/decisions/README.md.`);
    process.exit(1);
  }
  console.log(`Decision citations: ${files.length} files, none by number, every slug a heading.`);
}
