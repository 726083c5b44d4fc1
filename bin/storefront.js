#!/usr/bin/env node
/* global process */
// The `storefront` command. Plain JavaScript on purpose: it must run on any Node.js, so that an
// older one (Node 20 ships on Debian 12) gets a clear message instead of ERR_UNKNOWN_FILE_EXTENSION
// for the TypeScript sources, which only Node 24 or newer runs directly.
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);

if (major < REQUIRED_MAJOR) {
  process.stderr.write(
    [
      `storefront: this needs Node.js ${REQUIRED_MAJOR} or newer, and this is Node.js ${process.versions.node}.`,
      '`npm ci` installs Node.js 24 into the project (the `node` devDependency); use it through npm:',
      '  npm start                 start the service',
      "  npx storefront <command>  any other command (npx runs the project's own Node.js)",
      '',
    ].join('\n'),
  );
  process.exit(1);
}

await import('../src/main.ts');
