/**
 * The once-a-day update notice around `flower "…"`, `flower once` and `flower run` (src/config/update.ts):
 * the check starts with the command and runs beside it; after the command, a newer version is one dim line
 * on stderr. The exit code is the command's, whatever the check did.
 */
import { createRequire } from 'node:module';
import { detectLang } from '../config/lang.js';
import { checkForUpdate, updateWanted } from '../config/update.js';
import type { CliIO } from './io.js';

const PKG = createRequire(import.meta.url)('../../package.json') as { name: string; version: string };

const T = {
  en: (latest: string, current: string, name: string) => `flower ${latest} is available (this is ${current}): npm install -g ${name}`,
  zh: (latest: string, current: string, name: string) => `flower 有新版本 ${latest}(当前 ${current}):npm install -g ${name}`,
} as const;

export async function withUpdateNotice(io: CliIO, json: boolean | undefined, run: () => Promise<number>): Promise<number> {
  const terminal = io.stdin?.isTTY === true && io.stderr.isTTY === true && !json;
  const check = updateWanted(io.env, terminal) ? checkForUpdate(io.env, PKG) : Promise.resolve(null);
  try {
    return await run();
  } finally {
    const latest = await check;
    if (latest) io.stderr.write(`\u001b[2m. ${T[detectLang(io.env)](latest, PKG.version, PKG.name)}\u001b[22m\n`);
  }
}
