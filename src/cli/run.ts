/**
 * `flower run FILE[:EXPORT]` — run your own Workflow: an ES module exporting a Workflow, or a function
 * (sync or async) returning one — called with `{ channel }`, the HumanChannel the terminal answers.
 * EXPORT defaults to `default`, then `workflow`. It gets what `flower` gets: the renderer and live
 * line, questions answered from the keyboard, `? …`, Ctrl-C steering, the workbench (when its specs
 * want it) and trimming of old tool results on resume.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { detectLang } from '../config/index.js';
import { errorText } from '../errors.js';
import { HumanChannel } from '../human/index.js';
import { Runtime } from '../runtime/index.js';
import { RunLayout } from '../state/index.js';
import { Lineage, type Workflow } from '../workflow/index.js';
import { handOverOf } from './bequest.js';
import { closing } from './ending.js';
import { holdFolder } from './folder-lock.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import { security, type GlobalOptions } from './globals.js';
import { resolvePlugins } from './skills.js';
import { TerminalSession } from './session.js';
import { noteLines } from './screen/wrap.js';
import { wrapWidth } from './term.js';
import { credentialGate } from './setup.js';

function looksLikeWorkflow(v: unknown): v is Workflow {
  return typeof v === 'object' && v !== null && typeof (v as Workflow).run === 'function' && Array.isArray((v as Workflow).steps);
}

export function splitTarget(target: string): { file: string; exportName: string | undefined } {
  // a Windows drive letter (C:\…) is not an export separator
  const i = target.lastIndexOf(':');
  if (i <= 1) return { file: target, exportName: undefined };
  return { file: target.slice(0, i), exportName: target.slice(i + 1) || undefined };
}

/** What `flower run` hands a factory export. */
export interface RunHandles {
  /** the HumanChannel the terminal is connected to (give it to the roles and the Workflow) */
  channel: HumanChannel;
  /** the library itself, so a workflow file needs no import that depends on where flower is installed */
  flower: Record<string, unknown>;
  /** the words after FILE on the command line ('' when none) */
  ask: string;
  workspace: string;
  runDir: string;
}

export async function loadWorkflow(target: string, cwd: string, handles?: RunHandles): Promise<Workflow> {
  const { file, exportName } = splitTarget(target);
  const abs = path.resolve(cwd, file);
  if (!fs.existsSync(abs)) throw new CliExit(EXIT.failure, `x no such file: ${abs} (expected FILE:EXPORT, e.g. flow.mjs:workflow)`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (e) {
    throw new CliExit(EXIT.failure, `x could not import ${abs}: ${errorText(e)}`);
  }
  const names = exportName ? [exportName] : ['default', 'workflow'];
  const name = names.find((n) => mod[n] !== undefined);
  if (!name) {
    const have = Object.keys(mod).join(', ') || '(none)';
    throw new CliExit(EXIT.failure, `x ${abs} has no export '${names.join("' or '")}'; its exports: ${have}`);
  }
  let v = mod[name];
  if (typeof v === 'function') {
    try {
      v = await (v as (h?: RunHandles) => unknown)(handles);
    } catch (e) {
      throw new CliExit(EXIT.failure, `x ${file}:${name}() threw: ${errorText(e)}`);
    }
  }
  if (!looksLikeWorkflow(v)) throw new CliExit(EXIT.failure, `x ${file}:${name} is not a Workflow (nor a function returning one)`);
  return v;
}

export interface RunOptions {
  new?: boolean;
  /** words after FILE, handed to a factory as `ask` */
  ask?: string[];
  /** undefined: on when the workflow wants it (a spec with `workbench: true`) */
  workbench?: boolean;
  trim?: boolean;
  timeout?: number;
  /** another run holds the folder: wait for it instead of exiting 1 */
  wait?: boolean;
}

export async function run(target: string, o: RunOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const lang = detectLang(io.env);
  const layout = RunLayout.of({ cwd, workspace: g.workspace, runDir: g.runDir });
  const tty = io.stdin?.isTTY === true;
  // the channel a factory export receives; a workflow that brings its own (Workflow options) keeps it
  const given = new HumanChannel({ timeoutS: o.timeout ?? (tty ? 1800 : 0), lang, logPath: layout.qa, amendPath: layout.brief });
  // no credentials: offered setup on a terminal, else one line and exit 1 — before the workflow file is loaded
  await credentialGate(io, { json: g.json });
  const flower = (await import('../index.js')) as Record<string, unknown>;
  const wf = await loadWorkflow(target, cwd, {
    channel: given,
    flower,
    ask: (o.ask ?? []).join(' ').trim(),
    workspace: layout.workspace,
    runDir: layout.runDir,
  });
  const channel = wf.channel ?? given;
  const term = new TerminalSession({ io, g, lang });
  const ui = term.ui;
  if (!tty && o.timeout === undefined && wf.channel === undefined) ui.line(ui.t.nonTty);
  const rt = new Runtime({
    layout,
    env: io.env,
    plugins: resolvePlugins(g, cwd),
    detachChildren: tty,
    ...security(g),
    workbench: o.workbench ?? wf.workbench,
    trim: o.trim ?? true,
    // the workflow file is code the next `flower run` executes outside every sandbox: no tool writes it
    protect: [path.resolve(cwd, splitTarget(target).file)],
  });
  // the words after the workflow (`--ask`), when given: what `flower ui` shows as the run's request
  rt.request = (o.ask ?? []).join(' ').trim() || undefined;
  // one run per folder (a workflow has lineage and wake numbers to keep right)
  let lock;
  try {
    lock = await holdFolder(rt.records, { wait: o.wait ?? false }, io);
  } catch (e) {
    term.close();
    rt.close();
    throw e;
  }
  if (g.verbose) io.stderr.write(noteLines(rt.describeLines(), wrapWidth(io.stderr, io.env)));
  try {
    if (o.new) {
      const dir = await (await Lineage.open(rt.records, rt.workspace)).archive(layout.archive, [layout.brief, layout.goal]);
      if (dir) ui.line(ui.t.archived(dir));
    }
    term.attach(rt, channel, layout, { lock, cmd: `flower run ${target}` });
    const ctx = await wf.run(rt, { onEvent: term.onEvent, onStep: (_name, r) => ui.result(r), stopAfterStep: term.stopAfterStep });
    await term.settle();
    term.close();
    const handOver = handOverOf(g, io, { lang, run: { ...splitTarget(target), ask: (o.ask ?? []).join(' ') } });
    return await closing(ui, io, rt, ctx, `flower run ${target}`, term.notices, handOver);
  } catch (e) {
    await term.notices?.crashed(e);
    throw e;
  } finally {
    term.close();
    channel.close();
    if (channel !== given) given.close();
    rt.close();
    await lock.release();
  }
}
