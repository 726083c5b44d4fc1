/**
 * Helpers of the tests that run documentation as programs (sdk-doc.test.ts, doc-examples.test.ts)
 * and of the build test: a strict type-check against the built package, and a run of a file with
 * Node. Not a test file itself.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import ts from 'typescript';

/** Inside the package, so `@storefront/client` resolves as it does for users (node_modules → dist). */
export const WORK_DIR = path.resolve(import.meta.dirname, '../.tmp');

/** The type errors of a file, as `file:line: message`, under the strict options users would have. */
export function typeErrors(fileName: string): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2024.d.ts'],
    types: ['node'],
    noEmit: true,
  };
  const checked = ts.createProgram([fileName], options);
  return ts.getPreEmitDiagnostics(checked).map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!diagnostic.file || diagnostic.start === undefined) return text;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${path.basename(diagnostic.file.fileName)}:${line + 1}: ${text}`;
  });
}

/** Runs `command` (a file with Node by default) in the file's folder; its exit code and output. */
export function run(
  fileName: string,
  command: readonly string[] = [process.execPath, fileName],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: path.dirname(fileName), stdio: 'pipe', env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
