/**
 * `flower demo` — the whole flow on the embedded scripted model, no key, no network: clarify → goal →
 * work (a worker really writes md2html.mjs) → a judge really runs it; then a wake with one more
 * sentence, to show the banner, the amended brief, the re-derived goal and the resumed session.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSim } from '../../sim/index.js';
import { RunLayout } from '../../state/index.js';
import { go, type GoOptions } from '../go.js';
import { EXIT, type CliIO } from '../io.js';
import type { GlobalOptions } from '../program.js';
import { firstRun, wakeRun } from './scenario.js';

export interface DemoOptions {
  /** folder to run in (default: a new temp folder) */
  dir?: string;
}

const FIRST = '写个 md 转 html 的脚本';
const WAKE = '顺便支持代码块高亮';

export async function demo(o: DemoOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  const dir = o.dir ? path.resolve(io.cwd ?? process.cwd(), o.dir) : fs.mkdtempSync(path.join(os.tmpdir(), 'flower-demo-'));
  fs.mkdirSync(dir, { recursive: true });
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  const say = (s: string) => io.stdout.write(`${s}\n`);
  try {
    // only the scripted model: a real key in the environment or a .env must not travel anywhere
    const env: Record<string, string | undefined> = {
      ...io.env,
      ANTHROPIC_BASE_URL: sim.url,
      ANTHROPIC_API_KEY: 'sk-sim-demo',
      ANTHROPIC_AUTH_TOKEN: '',
      ANTHROPIC_MODEL: '',
      FLOWER_ENV: path.join(dir, '.no-env'),
      FLOWER_CLI_RETRIES: io.env.FLOWER_CLI_RETRIES ?? '0',
    };
    const sub: CliIO = { ...io, env, cwd: dir, stdin: undefined };
    const layout = RunLayout.of({ cwd: dir, workspace: dir });
    const globals: GlobalOptions = { workspace: dir, runDir: layout.runDir, verbose: g.verbose };
    const opts: GoOptions = { asks: -1, rounds: 2, goal: true, judgeCanRun: true, timeout: 0, new: false, clarifyOnly: false, trim: true, handoff: true };

    say(`flower demo — a scripted model on ${sim.url}, no API key, no network. Folder: ${dir}`);
    say(`\n$ flower "${FIRST}" --timeout 0 --judge-can-run`);
    sim.enqueue(firstRun(dir));
    const first = await go([FIRST], opts, globals, sub);
    if (first !== EXIT.ok) return fail(io, 'the first run failed', dir);

    say(`\n$ flower "${WAKE}"      # the same folder, later: a remark, not a new task`);
    sim.enqueue(wakeRun(dir));
    const second = await go([WAKE], opts, globals, sub);
    if (second !== EXIT.ok) return fail(io, 'the wake run failed', dir);

    const left = sim.pending();
    const unexpected = sim.unexpected();
    if (left.length || unexpected.length) {
      return fail(io, `the scripted model drifted: ${left.length} scripted answers unused, ${unexpected.length} unexpected calls`, dir);
    }
    say('\nWhat is on disk now:');
    for (const f of [path.join(dir, 'md2html.mjs'), path.join(dir, 'sample.md'), layout.brief, layout.goal, layout.qa, layout.lineage, layout.manifest, layout.sessionsDb]) {
      if (fs.existsSync(f)) say(`  ${f}`);
    }
    say(`\nTry it: node ${path.join(dir, 'md2html.mjs')} ${path.join(dir, 'sample.md')}`);
    say(`See it:  npx flower ui -r ${path.join(dir, 'runs')}   # a local web view: runs, steps, verdicts, costs, context curves`);
    return EXIT.ok;
  } finally {
    await sim.close();
  }
}

function fail(io: CliIO, why: string, dir: string): number {
  io.stderr.write(`x demo: ${why} (folder kept: ${dir})\n`);
  return EXIT.failure;
}
