/**
 * `flower [ask]` (= `flower go`) — the default flow: clarify → set the goal → work, judged each round.
 * Typing it again in the same folder continues; a sentence given on waking is a remark on the same task.
 */
import path from 'node:path';
import { detectLang, hasCredentials, resolveEnv, type Lang } from '../config/index.js';
import { HumanChannel } from '../human/index.js';
import { requireGitRepo, Workbench } from '../guards/index.js';
import { RunLayout } from '../state/index.js';
import { Runtime } from '../runtime/index.js';
import { starterFlow, wakeState, type StarterFlow, type WakeState } from '../workflow/index.js';
import type { RunLockHeld } from '../state/index.js';
import { holdFolder } from './folder-lock.js';
import { CliExit, EXIT, readPipedRequest, type CliIO } from './io.js';
import { backendsFor } from './store.js';
import { security, type GlobalOptions } from './globals.js';
import { resolvePlugins } from './skills.js';
import { handOverOf } from './bequest.js';
import { closing } from './ending.js';
import { offerSetup, setupReason } from './setup.js';
import { TerminalSession } from './session.js';
import { noteLines } from './screen/wrap.js';
import { tokens, wrapWidth } from './term.js';

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

import { tilde } from './term.js';

export { tilde };

export async function go(words: string[], o: GoOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const lang = detectLang(io.env);
  const term = new TerminalSession({ io, g, lang });
  const ws = path.resolve(cwd, g.workspace);
  const runDir = path.resolve(cwd, g.runDir);

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
  const { ask, fresh } = await theRequest(words, o.new, st, term, io);
  const timeoutS = askTimeout(o, term);

  // a first run on a terminal with no credentials offers `flower setup` instead of only exiting
  // (before the terminal session takes stdin)
  if (term.tty && !g.json && !hasCredentials(resolveEnv(io.env))) await offerSetup(io, 'missing');

  const rt = runtimeOf(o, g, io, { layout, wb, cwd, tty: term.tty });
  // what the person typed for this run (a bare wake of a cut-short run: the request it was started with)
  rt.request = ask.trim() || (st.waking ? undefined : (st.request ?? undefined));
  const lock = await lockFolder(rt, o, term, io);
  if (g.verbose) io.stderr.write(noteLines(rt.describeLines(), wrapWidth(io.stderr, io.env)));
  const channel = humanChannel(o, timeoutS, layout, lang);
  let refused: 'refused' | 'model' | null = null;
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
    await banners(flow, st, { ws, layout, rt, term });
    term.attach(rt, channel, layout, { lock, cmd: 'flower' });
    const ctx = await flow.workflow.run(rt, {
      stopAfterStep: term.stopAfterStep,
      onEvent: term.onEvent,
      onStep: (_n, r) => {
        refused ??= setupReason(r);
        term.ui.result(r);
      },
    });
    await term.settle();
    term.close();
    return await closing(term.ui, io, rt, ctx, 'flower', term.notices, handOverOf(g, io, { lang }));
  } catch (e) {
    await term.notices?.crashed(e);
    throw e;
  } finally {
    term.close();
    channel.close();
    rt.close();
    await lock.release();
    // a 401 or a model the endpoint does not serve, mid-run on a terminal: offer setup again, once the terminal is released
    if (refused && term.tty && !g.json) await offerSetup(io, refused);
  }
}

// ---- the steps of go ----

/** The Runtime of this run: the layout and workbench built above, the person's flags. */
function runtimeOf(o: GoOptions, g: GlobalOptions, io: CliIO, at: { layout: RunLayout; wb: Workbench; cwd: string; tty: boolean }): Runtime {
  return new Runtime({
    layout: at.layout,
    env: io.env,
    handoff: o.handoff,
    workbench: at.wb,
    trim: o.trim,
    detachChildren: at.tty,
    plugins: resolvePlugins(g, at.cwd),
    ...security(g),
    ...(o.window !== undefined ? { window: o.window } : {}),
  });
}

/**
 * What is asked: the words, else stdin when piped, else a prompt on a terminal (where `/new` starts
 * over). Nothing to do is a stop (exit 1) — unless the folder has a run to continue.
 */
async function theRequest(words: string[], isNew: boolean, st: WakeState, term: TerminalSession, io: CliIO): Promise<{ ask: string; fresh: boolean }> {
  const ui = term.ui;
  const continuing = st.waking || st.unfinished;
  let ask = words.join(' ').trim();
  let fresh = isNew;
  // `echo "…" | flower`: the request comes on stdin (on a folder in progress, a remark)
  if (!ask && !term.tty) ask = await readPipedRequest(io.stdin, { needed: fresh || !continuing });
  if (!ask && term.tty && !fresh) {
    const first = await term.prompt(continuing ? ui.t.askWake : ui.t.askWhat);
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
  if (!ask && (fresh || !continuing)) {
    term.close();
    throw new CliExit(EXIT.usage, `x ${ui.t.nothingToDo}`);
  }
  return { ask, fresh };
}

/** How long a question waits: --timeout, else half an hour on a terminal and forever without one (said once). */
function askTimeout(o: GoOptions, term: TerminalSession): number {
  if (o.timeout !== undefined) return o.timeout;
  if (!term.tty) term.ui.line(term.ui.t.nonTty);
  return term.tty ? 1800 : 0;
}

/** The questions of the run: at most --asks of them (negative: no limit), kept in the run's Q&A log. */
function humanChannel(o: GoOptions, timeoutS: number, layout: RunLayout, lang: Lang): HumanChannel {
  return new HumanChannel({
    maxAsks: o.asks < 0 ? null : o.asks,
    timeoutS,
    logPath: layout.qa,
    amendPath: layout.brief,
    lang,
  }).withSubmissions(['brief', 'goal', 'verdict']);
}

/**
 * One run per folder: nothing of this run is written before the lock is ours (a PostgreSQL store is
 * reached first: its lock is an advisory lock there). A failure here closes what go opened.
 */
async function lockFolder(rt: Runtime, o: GoOptions, term: TerminalSession, io: CliIO): Promise<RunLockHeld> {
  try {
    await rt.ready();
    return o.held ?? (await holdFolder(rt.records, { wait: o.wait ?? false }, io));
  } catch (e) {
    term.close();
    rt.close();
    throw e;
  }
}

/** The lines before the work: an earlier run archived, or the wake banner of a folder continued. */
async function banners(flow: StarterFlow, st: WakeState, w: { ws: string; layout: RunLayout; rt: Runtime; term: TerminalSession }): Promise<void> {
  const ui = w.term.ui;
  if (flow.archived) ui.line(ui.t.archived(flow.archived));
  if (!flow.waking) return;
  const sid = st.steps['干活'];
  const ctx = sid ? await w.rt.contextOf(sid) : 0;
  const checks = (await wakeState(w.ws, { layout: w.layout, records: w.rt.records })).checks;
  ui.line(ui.t.wakeBanner(tilde(w.ws), checks, ctx > 0 ? tokens(ctx) : '', st.woke + 1));
}
