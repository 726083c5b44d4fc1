import { spawn } from 'node:child_process';
import path from 'node:path';

/** `src/main.ts`, the `storefront` command's TypeScript entry. */
export const CLI_MAIN = path.resolve(import.meta.dirname, '..', 'main.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one `storefront` command to its end (`node src/main.ts …`, or `entry`) and collects its
 * output. The environment is the test's, without a demo seed and with warnings only in the log;
 * `env` adds to or overrides it, and an undefined value removes a variable (`DATABASE_URL:
 * undefined` runs it on the embedded database of `DATA_DIR`).
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  entry: string = CLI_MAIN,
): Promise<CliResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, SEED_DEMO: '0', LOG_LEVEL: 'warn' };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
