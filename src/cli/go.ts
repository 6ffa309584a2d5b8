/**
 * `flower [ask]` (= `flower go`) — the default flow: clarify → set the goal → work, judged each round.
 * Typing it again in the same folder continues; a sentence given on waking is a remark on the same task.
 */
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { detectLang, hasCredentials, resolveEnv } from '../config/index.js';
import { HumanChannel, routeLine } from '../human/index.js';
import { requireGitRepo, Workbench } from '../guards/index.js';
import { RunLayout } from '../state/index.js';
import { oracle } from '../roles/index.js';
import { Runtime, type FlowerEvent } from '../runtime/index.js';
import { starterFlow, wakeState } from '../workflow/index.js';
import { CliExit, EXIT, readPipedRequest, type CliIO } from './io.js';
import type { GlobalOptions } from './program.js';
import { stepLabel } from './messages.js';
import { resolvePlugins } from './skills.js';
import { JsonRenderer, Renderer } from './render.js';
import { isAuthFailure, offerSetup } from './setup.js';
import { rescueOnSignals } from './signals.js';
import { money, tokens } from './term.js';

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
}

export function tilde(p: string, home = os.homedir()): string {
  return home && (p === home || p.startsWith(home + path.sep)) ? `~${p.slice(home.length)}` : p;
}

async function readLine(io: CliIO, question: string): Promise<string | null> {
  if (!io.stdin) return null;
  const rl = readline.createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream, terminal: false });
  io.stderr.write(`${question}\n> `);
  try {
    return await new Promise<string | null>((resolve) => {
      rl.once('line', (l) => resolve(l));
      rl.once('close', () => resolve(null));
    });
  } finally {
    rl.close();
  }
}

export async function go(words: string[], o: GoOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const lang = detectLang(io.env);
  const ui = g.json ? new JsonRenderer(io.stdout, lang) : new Renderer(io.stdout, lang, { verbose: g.verbose });
  const ws = path.resolve(cwd, g.workspace);
  const runDir = path.resolve(cwd, g.runDir);
  const tty = io.stdin?.isTTY === true;
  let ask = words.join(' ').trim();
  let fresh = o.new;

  // --isolate: every worker gets its own git worktree, so the workbench moves out of the repository
  // (<parent>/.flower-<name>) where every worktree can reach it
  if (o.isolate) requireGitRepo(ws);
  // every path of this run, built once (lineage records its workbench, so `flower status` finds the notes)
  const layout = RunLayout.of({ cwd, workspace: ws, runDir, isolate: o.isolate ?? false });
  const wb = new Workbench(ws, { root: layout.root, lang });
  const st = await wakeState(ws, { layout });
  // `echo "…" | flower`: the request comes on stdin (on a folder in progress, a remark)
  if (!ask && !tty) ask = await readPipedRequest(io.stdin, { needed: fresh || !st.waking });
  if (!ask && tty && !fresh) {
    const first = await readLine(io, st.waking ? ui.t.askWake : ui.t.askWhat);
    if (first === null) throw new CliExit(EXIT.failure, '');
    ask = first.trim();
    if (ask === '/new') {
      fresh = true;
      ask = ((await readLine(io, ui.t.askWhat)) ?? '').trim();
    }
  }
  if (!ask && (fresh || !st.waking)) throw new CliExit(EXIT.failure, `x ${ui.t.nothingToDo}`);

  let timeoutS = o.timeout;
  if (timeoutS === undefined) {
    timeoutS = tty ? 1800 : 0;
    if (!tty) ui.line(ui.t.nonTty);
  }

  // a first run on a terminal with no credentials offers `flower setup` instead of only exiting
  if (tty && !g.json && !hasCredentials(resolveEnv(io.env))) await offerSetup(io, 'missing');
  let refused = false;

  const rt = new Runtime({
    layout, env: io.env, handoff: o.handoff, workbench: wb, trim: o.trim, detachChildren: tty, plugins: resolvePlugins(g, cwd),
    ...(o.window !== undefined ? { window: o.window } : {}),
  });
  const unhook = rescueOnSignals(rt);
  if (g.verbose) io.stderr.write(`. ${rt.describe()}\n`);
  let rl: readline.Interface | undefined;
  let stopSigint = () => {};
  // what a side question is answered from: the last 60 events, thinking and prompts left out
  const recent: string[] = [];
  const onEvent = (e: FlowerEvent) => {
    if (e.kind === 'system' && e.payload.lineage === 'corrupt') ui.line(ui.t.lineageCorrupt(String(e.payload.keptAt)));
    // a file flower did not write was set aside, not overwritten: the person must hear where it went
    else if (e.kind === 'system' && (e.payload.lineage === 'foreign' || e.payload.keptAside)) ui.line(`! ${e.text}`);
    if (e.kind !== 'thinking' && e.kind !== 'prompt' && e.text.trim()) {
      recent.push(`[${e.kind}${e.tool ? ` ${e.tool}` : ''}${e.subagent ? ' (worker)' : ''}] ${e.text.replace(/\s+/g, ' ').slice(0, 200)}`);
      if (recent.length > 60) recent.shift();
    }
    ui.event(e);
  };
  // `? question`: a read-only oracle answers beside the work, in its own Runtime (runs/aside: its cost
  // and sessions stay out of the main manifest), without touching the working session
  const asides: Promise<void>[] = [];
  const askAside = async (question: string): Promise<void> => {
    let aside: Runtime | undefined;
    try {
      aside = new Runtime({ layout: layout.aside(), env: io.env, resilience: false, handoff: false, detachChildren: tty, lang });
      const r = await aside.run(oracle({ lang }), ui.t.asidePrompt(question, recent.join('\n')), { stepName: '旁路问答' });
      ui.line(ui.t.asideHead(question), ...(r.ok ? r.text : r.error ?? '').split('\n').filter((l) => l.trim()).map((l) => `#   ${l}`), `#   $${money(r.cost_usd)}`);
    } catch (e) {
      ui.line(ui.t.asideHead(question), `#   x ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      aside?.close();
    }
  };
  const channel = new HumanChannel({
    onEvent,
    maxAsks: o.asks < 0 ? null : o.asks,
    timeoutS,
    logPath: layout.qa,
    amendPath: layout.brief,
    lang,
  }).withSubmissions(['brief', 'goal', 'verdict']);
  try {
    const flow = await starterFlow(ask, {
      workspace: ws, runDir, channel, fresh, clarifyOnly: o.clarifyOnly, goal: o.goal, rounds: o.rounds, judgeCanRun: o.judgeCanRun, lang,
      layout, records: rt.records, isolate: o.isolate ?? false,
    });
    if (flow.archived) ui.line(ui.t.archived(flow.archived));
    if (flow.waking) {
      const sid = st.steps['干活'];
      const ctx = sid ? await rt.contextOf(sid) : 0;
      ui.line(ui.t.wakeBanner(tilde(ws), (await wakeState(ws, { layout, records: rt.records })).checks, ctx > 0 ? tokens(ctx) : '', st.woke + 1));
    }
    // Ctrl+C on a terminal: the first press opens a line for a remark (the agent keeps working while
    // you type); Enter interrupts at the next message boundary and the same session continues with
    // the remark. A second press while that line is open records the step (interrupted-by-human) and
    // exits 130 — nothing in flight is left unrecorded.
    let remarkOpen = false;
    const onSigint = () => {
      if (!remarkOpen) {
        remarkOpen = true;
        ui.line(ui.t.interruptHint);
        return;
      }
      rt.rescue('interrupted-by-human');
      rt.close();
      process.exit(EXIT.interrupted);
    };
    if (tty) process.on('SIGINT', onSigint);
    stopSigint = () => process.removeListener('SIGINT', onSigint);
    if (tty && io.stdin) {
      // read all the time: text typed during hours of work must not be eaten as the next answer
      rl = readline.createInterface({ input: io.stdin, terminal: false });
      rl.on('line', (line) => {
        if (remarkOpen) {
          remarkOpen = false;
          rt.interrupt(line);
          return;
        }
        const r = routeLine(line, { pending: channel.nextAsk() });
        if (r.kind === 'answer') channel.answer(r.id, r.text);
        else if (r.kind === 'pick') channel.answer(r.id, String(r.index + 1));
        else if (r.kind === 'decline') channel.decline(r.id);
        else if (r.kind === 'mail') channel.send(r.text);
        else if (r.kind === 'oracle') asides.push(askAside(r.question));
      });
      rl.on('close', () => {
        const pending = channel.nextAsk();
        if (pending) channel.decline(pending.id);
      });
    }
    const ctx = await flow.workflow.run(rt, {
      onEvent,
      onStep: (_n, r) => {
        refused ||= isAuthFailure(r);
        ui.result(r);
      },
    });
    if (asides.length) {
      // side answers still on their way get up to two minutes
      await Promise.race([Promise.allSettled(asides), new Promise((r) => setTimeout(r, 120_000).unref())]);
    }
    ui.line('', ui.t.total(money(rt.totalCost()), rt.manifest.path));
    if (ctx._failedAt) {
      const why = ctx._aborted ? `: ${ctx._aborted}` : '';
      io.stderr.write(`x ${ui.t.abortedAt(stepLabel(ctx._failedAt, lang))}${why}\n`);
      return EXIT.failure;
    }
    return EXIT.ok;
  } finally {
    stopSigint();
    rl?.close();
    channel.close();
    unhook();
    rt.close();
    // a 401 mid-run on a terminal: offer setup again (after the terminal is released)
    if (refused && tty && !g.json) await offerSetup(io, 'refused');
  }
}
