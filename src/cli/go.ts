/**
 * `flower [ask]` (= `flower go`) — the default flow: clarify → set the goal → work, judged each round.
 * Typing it again in the same folder continues; a sentence given on waking is a remark on the same task.
 */
import os from 'node:os';
import path from 'node:path';
import { detectLang, hasCredentials, resolveEnv } from '../config/index.js';
import { HumanChannel } from '../human/index.js';
import { requireGitRepo, Workbench } from '../guards/index.js';
import { RunLayout } from '../state/index.js';
import { Runtime } from '../runtime/index.js';
import { starterFlow, wakeState } from '../workflow/index.js';
import type { RunLockHeld } from '../state/index.js';
import { holdFolder } from './folder-lock.js';
import { CliExit, EXIT, readPipedRequest, type CliIO } from './io.js';
import { backendsFor } from './store.js';
import { security, type GlobalOptions } from './globals.js';
import { resolvePlugins } from './skills.js';
import { closing } from './ending.js';
import { isAuthFailure, offerSetup } from './setup.js';
import { TerminalSession } from './session.js';
import { tokens } from './term.js';

export interface GoOptions {
  asks: number;
  rounds: number;
  goal: boolean;
  judgeCanRun: boolean;
  timeout?: number;
  new: boolean;
  clarifyOnly: boolean;
  trim: boolean;
  handoff: boolean;
  window?: number;
  isolate?: boolean;
  /** another run holds the folder: wait for it instead of exiting 1 */
  wait?: boolean;
  /** the folder's run lock, when the caller took it already (`flower` takes it before loading the flow) */
  held?: RunLockHeld;
}

export function tilde(p: string, home = os.homedir()): string {
  return home && (p === home || p.startsWith(home + path.sep)) ? `~${p.slice(home.length)}` : p;
}

export async function go(words: string[], o: GoOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const lang = detectLang(io.env);
  const term = new TerminalSession({ io, g, lang });
  const ui = term.ui;
  const ws = path.resolve(cwd, g.workspace);
  const runDir = path.resolve(cwd, g.runDir);
  const tty = term.tty;
  let ask = words.join(' ').trim();
  let fresh = o.new;

  // --isolate: every worker gets its own git worktree, so the workbench moves out of the repository
  // (<parent>/.flower-<name>) where every worktree can reach it
  if (o.isolate) requireGitRepo(ws);
  // every path of this run, built once (lineage records its workbench, so `flower status` finds the notes)
  const layout = RunLayout.of({ cwd, workspace: ws, runDir, isolate: o.isolate ?? false });
  const wb = new Workbench(ws, { root: layout.root, lang });
  // the store named by FLOWER_STORE / --store: a PostgreSQL one that cannot be used stops here with one
  // line, before any question or model call; the wake state is read from it
  const early = await backendsFor(io.env, layout);
  const st = await wakeState(ws, { layout, records: early.records }).finally(() => early.close());
  // `echo "…" | flower`: the request comes on stdin (on a folder in progress, a remark)
  if (!ask && !tty) ask = await readPipedRequest(io.stdin, { needed: fresh || !(st.waking || st.unfinished) });
  if (!ask && tty && !fresh) {
    const first = await term.prompt(st.waking || st.unfinished ? ui.t.askWake : ui.t.askWhat);
    if (first === null) {
      term.close();
      throw new CliExit(EXIT.failure, '');
    }
    ask = first.trim();
    if (ask === '/new') {
      fresh = true;
      ask = ((await term.prompt(ui.t.askWhat)) ?? '').trim();
    }
  }
  // a run cut short before its brief was frozen (lineage names its clarify session or holds the
  // request) is continued too
  if (!ask && (fresh || !(st.waking || st.unfinished))) {
    term.close();
    throw new CliExit(EXIT.failure, `x ${ui.t.nothingToDo}`);
  }

  let timeoutS = o.timeout;
  if (timeoutS === undefined) {
    timeoutS = tty ? 1800 : 0;
    if (!tty) ui.line(ui.t.nonTty);
  }

  // a first run on a terminal with no credentials offers `flower setup` instead of only exiting
  // (before the terminal session takes stdin)
  if (tty && !g.json && !hasCredentials(resolveEnv(io.env))) await offerSetup(io, 'missing');
  let refused = false;

  const rt = new Runtime({
    layout,
    env: io.env,
    handoff: o.handoff,
    workbench: wb,
    trim: o.trim,
    detachChildren: tty,
    plugins: resolvePlugins(g, cwd),
    ...security(g),
    ...(o.window !== undefined ? { window: o.window } : {}),
  });
  // one run per folder: nothing of this run is written before the lock is ours (a PostgreSQL store is
  // reached first: its lock is an advisory lock there)
  let lock;
  try {
    await rt.ready();
    lock = o.held ?? (await holdFolder(rt.records, { wait: o.wait ?? false }, io));
  } catch (e) {
    term.close();
    rt.close();
    throw e;
  }
  if (g.verbose) io.stderr.write(`. ${rt.describe()}\n`);
  const channel = new HumanChannel({
    maxAsks: o.asks < 0 ? null : o.asks,
    timeoutS,
    logPath: layout.qa,
    amendPath: layout.brief,
    lang,
  }).withSubmissions(['brief', 'goal', 'verdict']);
  try {
    const flow = await starterFlow(ask, {
      workspace: ws,
      runDir,
      channel,
      fresh,
      clarifyOnly: o.clarifyOnly,
      goal: o.goal,
      rounds: o.rounds,
      judgeCanRun: o.judgeCanRun,
      lang,
      layout,
      records: rt.records,
      isolate: o.isolate ?? false,
    });
    if (flow.archived) ui.line(ui.t.archived(flow.archived));
    if (flow.waking) {
      const sid = st.steps['干活'];
      const ctx = sid ? await rt.contextOf(sid) : 0;
      ui.line(ui.t.wakeBanner(tilde(ws), (await wakeState(ws, { layout, records: rt.records })).checks, ctx > 0 ? tokens(ctx) : '', st.woke + 1));
    }
    term.attach(rt, channel, layout);
    const ctx = await flow.workflow.run(rt, {
      stopAfterStep: term.stopAfterStep,
      onEvent: term.onEvent,
      onStep: (_n, r) => {
        refused ||= isAuthFailure(r);
        ui.result(r);
      },
    });
    await term.settle();
    term.close();
    return await closing(ui, io, rt, ctx, 'flower');
  } finally {
    term.close();
    channel.close();
    rt.close();
    await lock.release();
    // a 401 mid-run on a terminal: offer setup again, once the terminal is released
    if (refused && tty && !g.json) await offerSetup(io, 'refused');
  }
}
