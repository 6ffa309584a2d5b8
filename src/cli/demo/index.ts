/**
 * `flower demo` — the whole flow on the embedded scripted model, no key, no network: clarify → goal →
 * work (a worker really writes md2html.mjs) → a judge really runs it; then a wake with one more
 * sentence, to show the banner, the amended brief, the re-derived goal and the resumed session.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectLang } from '../../config/index.js';
import { startSim } from '../../sim/index.js';
import { RunLayout } from '../../state/index.js';
import { go, type GoOptions } from '../go.js';
import { EXIT, type CliIO } from '../io.js';
import type { GlobalOptions } from '../globals.js';
import { flowerBin } from '../self.js';
import { hangingLines } from '../screen/wrap.js';
import { wrapWidth } from '../term.js';
import { firstRun, wakeRun } from './scenario.js';

export interface DemoOptions {
  /** folder to run in (default: a new temp folder) */
  dir?: string;
}

const TEXT = {
  zh: {
    first: '写个 md 转 html 的脚本',
    wake: '顺便支持代码块高亮',
    banner: (url: string, dir: string) => `flower demo —— 脚本模型在 ${url},不要 API key,不联网。目录:${dir}`,
    wakeNote: '# 同一个目录,过一阵:这是补充,不是新任务',
    onDisk: '现在磁盘上有:',
    tryIt: '试试:',
    look: '看看它记得什么:',
    see: '看一看:',
    seeNote: '# 本地网页:运行、步骤、判定、花费、上下文曲线',
    cont: (me: string) => `在那个目录接着做(用你自己的 key;先运行 ${me} setup):`,
    failedFirst: '第一次运行失败',
    failedWake: '唤醒那次运行失败',
    drifted: (left: number, unexpected: number) => `脚本模型跑偏了:${left} 条脚本答案没用上,${unexpected} 次意外调用`,
    fail: (why: string, dir: string) => `demo:${why}(目录保留在:${dir})`,
  },
  en: {
    first: 'write a markdown-to-html script',
    wake: 'also support code blocks with highlighting',
    banner: (url: string, dir: string) => `flower demo — a scripted model on ${url}, no API key, no network. Folder: ${dir}`,
    wakeNote: '# the same folder, later: a remark, not a new task',
    onDisk: 'What is on disk now:',
    tryIt: 'Try it:',
    look: 'What it remembers:',
    see: 'See it:',
    seeNote: '# a local web view: runs, steps, verdicts, costs, context curves',
    cont: (me: string) => `Go on in that folder (with your own key; run ${me} setup first):`,
    failedFirst: 'the first run failed',
    failedWake: 'the wake run failed',
    drifted: (left: number, unexpected: number) => `the scripted model drifted: ${left} scripted answers unused, ${unexpected} unexpected calls`,
    fail: (why: string, dir: string) => `demo: ${why} (folder kept: ${dir})`,
  },
} as const;

/** A shell word: quoted when it holds anything a shell would split or expand. */
const sh = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * How to run this very flower from any folder: `flower` when that name on the person's PATH is this
 * installation, else `node /abs/bin/flower.js` — never `npx flower` (outside this checkout npx resolves
 * the registry's unrelated `flower` package). A `node_modules/.bin` on PATH does not count: npx and
 * npm scripts put one there for themselves only (`npx flower demo` runs from `~/.npm/_npx/…/node_modules/.bin`),
 * and a relative entry reaches nothing from another folder.
 */
export function selfCommand(env: Record<string, string | undefined>): string {
  const bin = flowerBin();
  const real = (p: string): string | null => {
    try {
      return fs.realpathSync(p);
    } catch {
      return null;
    }
  };
  const mine = real(bin);
  const own = (dir: string) => path.isAbsolute(dir) && !/(^|[\\/])node_modules[\\/]\.bin[\\/]?$/.test(dir);
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(own)) {
    // the shell runs the first `flower` it finds: this one, or someone else's
    const found = real(path.join(dir, 'flower'));
    if (found) return found === mine ? 'flower' : `node ${sh(mine ?? bin)}`;
  }
  return `node ${sh(mine ?? bin)}`;
}

/**
 * The demo's own lines: wrapped between words at the terminal's width (src/cli/term.ts `wrapWidth`) —
 * except a line that holds commands to copy (`whole`): a break inside a command would run half of it
 * when pasted, so the terminal's own soft wrap shows it; with --json every line is a JSON object on
 * stdout, the demo's own lines as notes like the run's.
 */
function sayer(g: GlobalOptions, io: CliIO): (s: string, o?: { whole?: boolean }) => void {
  const cols = wrapWidth(io.stdout, io.env);
  return (s: string, o = {}) => {
    if (!g.json)
      io.stdout.write(
        `${s
          .split('\n')
          .flatMap((l) => (o.whole ? [l] : hangingLines(l, cols, 2)))
          .join('\n')}\n`,
      );
    else if (s.trim()) io.stdout.write(`${JSON.stringify({ t: new Date().toISOString(), kind: 'note', text: s.trim() })}\n`);
  };
}

export async function demo(o: DemoOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  const dir = o.dir ? path.resolve(io.cwd ?? process.cwd(), o.dir) : fs.mkdtempSync(path.join(os.tmpdir(), 'flower-demo-'));
  fs.mkdirSync(dir, { recursive: true });
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  const lang = detectLang(io.env);
  const t = TEXT[lang];
  const say = sayer(g, io);
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
    // --notify / --notify-cmd go through: the demo is where a person tries their notifications out without a key
    const notify = { ...(g.notify !== undefined ? { notify: g.notify } : {}), ...(g.notifyCmd !== undefined ? { notifyCmd: g.notifyCmd } : {}) };
    const globals: GlobalOptions = {
      workspace: dir,
      runDir: layout.runDir,
      verbose: g.verbose,
      // -q as on a run: prose, questions, step lines and verdicts only
      ...(g.quiet ? { quiet: true } : {}),
      simulated: true,
      json: g.json ?? false,
      ...notify,
      ...(g.bequest === false ? { bequest: false } : {}),
    };
    const opts: GoOptions = { asks: -1, rounds: 2, goal: true, judgeCanRun: true, timeout: 0, new: false, clarifyOnly: false, trim: true, handoff: true };

    say(t.banner(sim.url, dir));
    say(`\n$ flower "${t.first}" --timeout 0 --judge-can-run`);
    sim.enqueue(firstRun(dir, lang));
    const first = await go([t.first], opts, globals, sub);
    if (first !== EXIT.ok) return fail(io, t.fail(t.failedFirst, dir));

    say(`\n$ flower "${t.wake}"      ${t.wakeNote}`);
    sim.enqueue(wakeRun(dir, lang));
    const second = await go([t.wake], opts, globals, sub);
    if (second !== EXIT.ok) return fail(io, t.fail(t.failedWake, dir));

    const left = sim.pending();
    const unexpected = sim.unexpected();
    if (left.length || unexpected.length) {
      return fail(io, t.fail(t.drifted(left.length, unexpected.length), dir));
    }
    say(`\n${t.onDisk}`);
    for (const f of [
      path.join(dir, 'md2html.mjs'),
      path.join(dir, 'sample.md'),
      layout.brief,
      layout.goal,
      layout.qa,
      layout.lineage,
      layout.manifest,
      layout.sessionsDb,
      ...layout.bequest,
    ]) {
      if (fs.existsSync(f)) say(`  ${f}`);
    }
    // commands that work from any folder: absolute paths, and this flower by a name that reaches it
    const me = selfCommand(io.env);
    const whole = { whole: true };
    say(`\n${t.tryIt} node ${sh(path.join(dir, 'md2html.mjs'))} ${sh(path.join(dir, 'sample.md'))}`, whole);
    say(`${t.look} ${me} status -w ${sh(dir)}   ·   ${me} log -w ${sh(dir)}`, whole);
    say(`${t.see} ${me} ui -r ${sh(layout.runDir)}   ${t.seeNote}`, whole);
    say(`${t.cont(me)} cd ${sh(dir)} && ${me} "…"`, whole);
    return EXIT.ok;
  } finally {
    await sim.close();
  }
}

function fail(io: CliIO, line: string): number {
  io.stderr.write(`x ${line}\n`);
  return EXIT.failure;
}
