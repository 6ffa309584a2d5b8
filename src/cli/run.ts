/**
 * `flower run FILE[:EXPORT]` — run your own Workflow: an ES module exporting a Workflow, or a function
 * (sync or async) returning one. EXPORT defaults to `default`, then `workflow`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { detectLang } from '../config/index.js';
import { errorText } from '../errors.js';
import { Runtime } from '../runtime/index.js';
import { RunLayout } from '../state/index.js';
import { Lineage, type Workflow } from '../workflow/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import type { GlobalOptions } from './program.js';
import { resolvePlugins } from './skills.js';
import { JsonRenderer, Renderer } from './render.js';
import { rescueOnSignals } from './signals.js';
import { money } from './term.js';

function looksLikeWorkflow(v: unknown): v is Workflow {
  return typeof v === 'object' && v !== null && typeof (v as Workflow).run === 'function' && Array.isArray((v as Workflow).steps);
}

export function splitTarget(target: string): { file: string; exportName: string | undefined } {
  // a Windows drive letter (C:\…) is not an export separator
  const i = target.lastIndexOf(':');
  if (i <= 1) return { file: target, exportName: undefined };
  return { file: target.slice(0, i), exportName: target.slice(i + 1) || undefined };
}

export async function loadWorkflow(target: string, cwd: string): Promise<Workflow> {
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
      v = await (v as () => unknown)();
    } catch (e) {
      throw new CliExit(EXIT.failure, `x ${file}:${name}() threw: ${errorText(e)}`);
    }
  }
  if (!looksLikeWorkflow(v)) throw new CliExit(EXIT.failure, `x ${file}:${name} is not a Workflow (nor a function returning one)`);
  return v;
}

export async function run(target: string, o: { new?: boolean }, g: GlobalOptions, io: CliIO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const wf = await loadWorkflow(target, cwd);
  const lang = detectLang(io.env);
  const ui = g.json ? new JsonRenderer(io.stdout, lang) : new Renderer(io.stdout, lang, { verbose: g.verbose });
  const layout = RunLayout.of({ cwd, workspace: g.workspace, runDir: g.runDir });
  const rt = new Runtime({ layout, env: io.env, plugins: resolvePlugins(g, cwd) });
  const unhook = rescueOnSignals(rt);
  if (g.verbose) io.stderr.write(`. ${rt.describe()}\n`);
  try {
    if (o.new) {
      const dir = await (await Lineage.open(rt.records, rt.workspace)).archive(layout.archive, [layout.brief, layout.goal]);
      if (dir) ui.line(`. archived -> ${dir}`);
    }
    const ctx = await wf.run(rt, {
      onEvent: (e) => {
        if (e.kind === 'system' && e.payload.lineage === 'corrupt') ui.line(ui.t.lineageCorrupt(String(e.payload.keptAt)));
        else if (e.kind === 'system' && (e.payload.lineage === 'foreign' || e.payload.keptAside)) ui.line(`! ${e.text}`);
        ui.event(e);
      },
      onStep: (_name, r) => ui.result(r),
    });
    ui.line('', ui.t.total(money(rt.totalCost()), rt.manifest.path));
    if (ctx._failedAt) {
      const why = ctx._aborted ? ` (${ctx._aborted})` : '';
      io.stderr.write(`x ${ui.t.abortedAt(ctx._failedAt)}${why}\n`);
      return EXIT.failure;
    }
    return EXIT.ok;
  } finally {
    unhook();
    rt.close();
  }
}
