/**
 * The hand-over for the next tool (the bequest): at the end of `flower` and `flower run` (through
 * src/cli/ending.ts), and on `flower bequest`, the block of src/docs/bequest.ts goes into the
 * workspace's CLAUDE.md and AGENTS.md; `flower bequest --remove` takes it out. `--no-bequest` or
 * FLOWER_NO_BEQUEST=1 turns the end-of-run write off.
 *
 * This is flower writing into the person's files, so it is careful the way a guard is:
 * - the files are written as src/cli/bequest-files.ts says: atomically, links followed only inside the
 *   workspace and outside its protected places, anything flower cannot edit safely left alone with one
 *   warning line;
 * - the block says only what flower knows itself and the person's own request, with every known secret
 *   value scrubbed (the notifications' scrubbing, src/cli/notify.ts); no model's text goes in, since the
 *   next tool reads the file as instructions;
 * - a failure is a warning, never a failed run: the exit code stays what the run made it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { detectLang, resolveEnv, type Lang } from '../config/index.js';
import { bequestWhen, renderBequest, type BequestFacts } from '../docs/index.js';
import { errorText } from '../errors.js';
import { redact } from '../guards/index.js';
import { Manifest, type Runtime } from '../runtime/index.js';
import { NAMES, RunLayout, type ManifestRow, type RunRecords } from '../state/index.js';
import { wakeState, type WorkflowContext } from '../workflow/index.js';
import { one, removeBlocks, writeBlocks, writeFailed, type Did, type Outcome } from './bequest-files.js';
import type { GlobalOptions } from './globals.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import { locate } from './locate.js';
import { secretValuesOf } from './notify.js';
import type { Renderer } from './render.js';
import { backendsFor } from './store.js';
import { money } from './term.js';
import { usageTexts } from './usage.js';

const TEXT = {
  en: {
    written: (files: string) => `. handed over to the next tool in ${files} (\`flower bequest --remove\` takes it out)`,
    unchanged: (files: string) => `. the hand-over block in ${files} is up to date`,
    removed: (files: string) => `. took flower's block out of ${files}`,
    deleted: (files: string) => `. deleted ${files}: it held only flower's block`,
    none: '. no flower block in CLAUDE.md or AGENTS.md here',
    nothingHere: 'nothing to hand over here: no flower run was found in this folder or above it (`flower status` looks the same way)',
  },
  zh: {
    written: (files: string) => `. 已在 ${files} 里给下一个工具留了交接(\`flower bequest --remove\` 可以删掉)`,
    unchanged: (files: string) => `. ${files} 里的交接块已是最新`,
    removed: (files: string) => `. 已从 ${files} 里删掉 flower 的那一块`,
    deleted: (files: string) => `. 已删除 ${files}:里面只有 flower 的那一块`,
    none: '. 这里的 CLAUDE.md 和 AGENTS.md 里没有 flower 的块',
    nothingHere: '这里没有可交接的:在这个目录和上级目录里都没找到 flower 的运行记录(`flower status` 也是这样找的)',
  },
} as const;

// ---- what the block says ----

/** What the end of a run knows that the records may not say yet. */
export interface RunEnd {
  cost: number;
  at: Date;
  stoppedAt: string | null;
  /** this run's own rows (their verdict is the newest) */
  rows: readonly ManifestRow[];
}

export interface FactsInput {
  layout: RunLayout;
  records: RunRecords;
  lang: Lang;
  /** `flower run`: the workflow as run again from the workspace, and the words given after it */
  workflow?: string | null;
  ask?: string | null;
  /** the end of this run; absent for `flower bequest`, which reads the last run from the records */
  end?: RunEnd;
}

/** A shell word: quoted when it holds anything a shell would split or expand. */
const sh = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** A path as the block shows it: relative to the workspace (the folder the next tool opens), with a trailing slash for a folder. */
const shown = (p: string, ws: string): string => {
  const rel = path.relative(ws, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : p;
};

/** The facts of the block, from the records (lineage's request, the manifest's rows) and the run's end. */
export async function factsOf(i: FactsInput): Promise<BequestFacts> {
  const { layout } = i;
  const st = await wakeState(layout.workspace, { layout, records: i.records, keep: false });
  const all = await Manifest.read(i.records).catch(() => [] as ManifestRow[]);
  const lastRun = all.at(-1)?.run;
  const ofLast = all.filter((r) => r.run === lastRun);
  const judged = [...all, ...(i.end?.rows ?? [])].filter((r) => r.verdict).at(-1)?.verdict ?? null;
  const last = ofLast.at(-1);
  const end = i.end ?? {
    cost: ofLast.reduce((a, r) => a + (Number(r.cost_usd) || 0), 0),
    at: last ? new Date(last.ended_at || last.started_at) : new Date(),
    stoppedAt: last && !last.ok ? last.step : null,
  };
  const notes = layout.notes;
  const handoffs = fs.existsSync(notes) && fs.readdirSync(notes).some((f) => RunLayout.isHandoffName(f));
  const runsHere = layout.runDir === path.join(layout.workspace, NAMES.runDir);
  return {
    lang: i.lang,
    // the person's own words only: the sentence lineage recorded, or the words after `flower run FILE`
    request: i.workflow ? (i.ask ?? null) : st.request,
    workflow: i.workflow ?? null,
    at: bequestWhen(Number.isNaN(end.at.getTime()) ? new Date() : end.at),
    cost: `$${money(end.cost)}`,
    verdict: judged,
    stoppedAt: end.stoppedAt,
    notes: `${shown(notes, layout.workspace)}/`,
    present: { brief: fs.existsSync(layout.brief), goal: fs.existsSync(layout.goal), qa: fs.existsSync(layout.qa), handoffs },
    names: { brief: NAMES.brief, goal: NAMES.goal, qa: NAMES.qa, handoffPrefix: NAMES.handoffPrefix },
    flags: runsHere ? '' : ` -r ${sh(path.relative(layout.workspace, layout.runDir) || '.')}`,
  };
}

/** The block's lines with every secret value flower knows of replaced (the person's request may hold one). */
export function scrubbed(lines: readonly string[], env: Record<string, string | undefined>, layout: RunLayout): string[] {
  const values = secretValuesOf(resolveEnv(env, layout.cwd), { workspace: layout.workspace, runDir: layout.runDir });
  return lines.map((l) => redact(l, values).text);
}

// ---- the end of a run ----

/** The end-of-run hand-over of one run, or null when it is turned off. */
export interface HandOver {
  lang: Lang;
  env: Record<string, string | undefined>;
  workflow: string | null;
  ask: string | null;
}

const isOn = (v: string | undefined): boolean => ['1', 'true', 'yes', 'on'].includes((v ?? '').trim().toLowerCase());

/**
 * The hand-over this run leaves, or null with `--no-bequest` / FLOWER_NO_BEQUEST=1. `flower run`
 * gives its target (shown as run again from the workspace) and the words after it.
 */
export function handOverOf(
  g: GlobalOptions,
  io: CliIO,
  o: { lang: Lang; run?: { file: string; exportName: string | undefined; ask: string } },
): HandOver | null {
  const cwd = io.cwd ?? process.cwd();
  if (g.bequest === false || isOn(resolveEnv(io.env, cwd).env.FLOWER_NO_BEQUEST)) return null;
  const r = o.run;
  const workflow = r ? sh(shown(path.resolve(cwd, r.file), path.resolve(cwd, g.workspace)) + (r.exportName ? `:${r.exportName}` : '')) : null;
  return { lang: o.lang, env: io.env, workflow, ask: r?.ask.trim() || null };
}

/** The lines a person sees for what happened to the files (warnings one each). */
export function outcomeLines(outcomes: readonly Outcome[], lang: Lang): string[] {
  const t = TEXT[lang];
  const names = (did: Did) =>
    outcomes
      .filter((o) => o.did === did)
      .map((o) => path.basename(o.file))
      .join(', ');
  const lines: string[] = [];
  for (const [did, say] of [
    ['written', t.written],
    ['unchanged', t.unchanged],
    ['removed', t.removed],
    ['deleted', t.deleted],
  ] as const) {
    const n = names(did);
    if (n) lines.push(say(n));
  }
  return [...lines, ...outcomes.flatMap((o) => (o.warning ? [o.warning] : []))];
}

/** At the end of a run (src/cli/ending.ts): the block in both files. Never throws: trouble is a warning line. */
export async function leaveBequest(h: HandOver, ui: Renderer, rt: Runtime, ctx: WorkflowContext): Promise<void> {
  try {
    const facts = await factsOf({
      layout: rt.layout,
      records: rt.records,
      lang: h.lang,
      workflow: h.workflow,
      ask: h.ask,
      end: { cost: rt.totalCost(), at: new Date(), stoppedAt: ctx._failedAt ?? ctx._stoppedAfter ?? null, rows: rt.manifest.own() },
    });
    const outcomes = writeBlocks(rt.layout, scrubbed(renderBequest(facts), h.env, rt.layout), h.lang);
    // an up-to-date block is not news at the end of a run
    const lines = outcomeLines(
      outcomes.filter((o) => o.did !== 'unchanged'),
      h.lang,
    );
    if (lines.length) ui.line(...lines);
  } catch (e) {
    ui.line(writeFailed(h.lang, 'CLAUDE.md / AGENTS.md', one(errorText(e))));
  }
}

// ---- `flower bequest [--remove]` ----

/** `flower bequest`: write (or refresh) the block from what the folder remembers; `--remove` takes it out. Exit 1 when a file was left alone. */
export async function bequest(o: { remove: boolean }, g: GlobalOptions, io: CliIO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const lang = detectLang(io.env);
  const t = TEXT[lang];
  const at = locate({ ...g, cwd, noSuchFolder: usageTexts(lang).noSuchFolder });
  const layout = RunLayout.of({ cwd, workspace: at.workspace, runDir: at.runDir });
  let outcomes: Outcome[];
  if (o.remove) outcomes = removeBlocks(layout, lang);
  else {
    const b = await backendsFor(io.env, layout);
    let lines: string[];
    try {
      const st = await wakeState(layout.workspace, { layout, records: b.records, keep: false, followLineage: true });
      const rows = await Manifest.read(b.records).catch(() => [] as ManifestRow[]);
      if (rows.length === 0 && !st.request) throw new CliExit(EXIT.failure, `x ${t.nothingHere}`);
      lines = renderBequest(await factsOf({ layout: st.layout, records: b.records, lang }));
    } finally {
      b.close();
    }
    outcomes = writeBlocks(layout, scrubbed(lines, io.env, layout), lang);
  }
  const skipped = outcomes.some((x) => x.did === 'skipped');
  if (g.json) io.stdout.write(`${JSON.stringify({ kind: 'bequest', action: o.remove ? 'remove' : 'write', files: outcomes })}\n`);
  else {
    const lines = outcomeLines(outcomes, lang);
    const said = lines.filter((l) => !l.startsWith('!'));
    if (!said.length && o.remove && !skipped) said.push(t.none);
    if (said.length) io.stdout.write(`${said.join('\n')}\n`);
    for (const l of lines.filter((x) => x.startsWith('!'))) io.stderr.write(`${l}\n`);
  }
  return skipped ? EXIT.failure : EXIT.ok;
}
