/**
 * Fixtures for the ui tests, made by the real thing: `flower "…"` (the default flow) through the real
 * claude binary against the scripted model — the demo's scenario (a clarifier that asks, a goal, a
 * coordinator that delegates to a worker, a judge that runs the script). What each step's session sent
 * to the model is counted on the sim's side, so the page is checked against what really happened.
 */
import fs from 'node:fs';
import path from 'node:path';
import { firstRun, wakeRun } from '../../src/cli/demo/scenario.js';
import type { Sim } from '../../src/sim/index.js';
import { cli, project, testEnv, type CliRun, type Project } from '../helpers/e2e.js';

export const FIRST = '写个 md 转 html 的脚本';
export const WAKE = '顺便支持代码块高亮';

type Body = { tools?: Array<{ name: string }> };

/** Model calls the work step's coordinator made so far (its requests offer the Agent tool). */
export function coordinatorCalls(sim: Sim): number {
  return sim.messageRequests().filter((m) => (m.body as Body).tools?.some((t) => t.name === 'Agent')).length;
}

export interface FlowRun extends CliRun {
  /** coordinator model calls during this run */
  workCalls: number;
}

async function flow(sim: Sim, p: Project, sentence: string, items: ReturnType<typeof firstRun>, env: Record<string, string> = {}): Promise<FlowRun> {
  const before = coordinatorCalls(sim);
  sim.enqueue(items);
  const r = await cli([sentence, '--timeout', '0', '--judge-can-run', '--rounds', '2', '-w', p.ws, '-r', p.runs], {
    cwd: p.dir,
    env: testEnv(p, sim.url, { FLOWER_LANG: 'zh', ...env }),
    timeoutMs: 180_000,
  });
  if (r.code !== 0) throw new Error(`the scripted flow failed (${r.code}): ${r.stderr}\n${r.stdout}`);
  return { ...r, workCalls: coordinatorCalls(sim) - before };
}

/** The default flow once, in a fresh project. */
export async function firstFlow(sim: Sim, tag: string): Promise<{ p: Project; run: FlowRun }> {
  const p = project(tag);
  sim.reset();
  const run = await flow(sim, p, FIRST, firstRun(p.ws));
  return { p, run };
}

/** The same folder again: a wake with one more sentence (a second run in the manifest). */
export function wakeFlow(sim: Sim, p: Project): Promise<FlowRun> {
  return flow(sim, p, WAKE, wakeRun(p.ws));
}

/** Every file under `dir` with its size and mtime: the ui must leave this unchanged. */
export function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of fs.readdirSync(dir)) {
    const s = fs.statSync(path.join(dir, n));
    out[n] = `${s.size}:${s.mtimeMs}`;
  }
  return out;
}

/** A copy of a run dir, to damage without touching the shared fixture. */
export function copyRuns(from: string, tag: string): string {
  const to = fs.mkdtempSync(path.join(path.dirname(from), `${tag}-`));
  // the files only: the inbox/ folder of the run is not what these pages read
  for (const n of fs.readdirSync(from)) if (fs.statSync(path.join(from, n)).isFile()) fs.copyFileSync(path.join(from, n), path.join(to, n));
  return to;
}

/** the line of md2html.mjs the trace wake changes (removed), and what it becomes (added) */
export const CHANGED_LINE = {
  removed: '// desc: Markdown -> HTML converter (node md2html.mjs FILE.md > FILE.html)',
  added: '// desc: Markdown -> HTML converter with fenced code blocks',
};

/**
 * The wake for the trace pages: the worker overwrites md2html.mjs changing its first comment line (a
 * removed and an added line), and the work step's first attempt fails with a 529 (not retried inside
 * the binary: FLOWER_CLI_RETRIES is 0), so its row has two attempts and one error.
 */
export function traceWakeFlow(sim: Sim, p: Project): Promise<FlowRun> {
  const items = wakeRun(p.ws).map((it) => {
    if (typeof it === 'function' || it.type !== 'tool_use' || it.name !== 'Write') return it;
    const input = it.input as { file_path: string; content: string };
    if (!input.file_path.endsWith('md2html.mjs')) return it;
    if (!input.content.includes(CHANGED_LINE.removed)) throw new Error('the demo script no longer has the line the trace wake changes');
    return { ...it, input: { ...input, content: input.content.replace(CHANGED_LINE.removed, CHANGED_LINE.added) } };
  });
  const at = items.findIndex((it) => typeof it !== 'function' && it.type === 'tool_use' && it.name === 'Agent');
  const dispatch = items[at] as { match?: unknown };
  items.splice(at, 0, { type: 'error', status: 529, match: dispatch.match as never, label: 'the work step fails once' });
  return flow(sim, p, WAKE, items, { FLOWER_BASE_DELAY: '0.05', FLOWER_MAX_DELAY: '0.2' });
}
