/**
 * `flower status` and `flower log` — what a folder remembers, read-only: the brief and goal, the wake
 * count, which step continues which session (and how big its context is), and what every run spent.
 * Nothing is written and no model is called. A damaged or unreadable manifest or lineage is reported
 * (one line naming the file, exit 1; src/cli/refuse.ts), never shown as an empty folder and never moved.
 */
import fs from 'node:fs';
import { detectLang } from '../config/lang.js';
import { Manifest } from '../runtime/manifest.js';
import type { ManifestRow } from '../state/index.js';
import { RunLayout, type WaitingQuestion } from '../state/index.js';
import { wakeState } from '../workflow/wake.js';
import { discoverFor } from './skills.js';
import type { Discovery } from '../skills/index.js';
import { backendsFor, type Backends } from './store.js';
import { EXIT, type CliIO } from './io.js';
import { locate } from './locate.js';
import { refusing } from './refuse.js';
import type { GlobalOptions } from './globals.js';
import { usageTexts } from './usage.js';
import { stepLabel } from './messages.js';
import { hangingLines } from './screen/wrap.js';
import { clockDuration, money, sanitize, tilde, tokens, wrapWidth } from './term.js';

export interface StatusReport {
  workspace: string;
  runDir: string;
  brief: { confirmed: boolean; path: string | null; missing: string[] };
  goal: { checks: number; unverifiable: number; path: string | null };
  woke: number;
  steps: Array<{ step: string; session: string; context: number }>;
  runs: Array<{ run: string; rows: number; ok: boolean; cost_usd: number; started_at: string; last_step: string; verdict: Verdict | null }>;
  /** the newest judge verdict in this folder (outcome and pass count), null when no judge ran */
  verdict: (Verdict & { run: string; step: string }) | null;
  total_cost_usd: number;
  handoffs: string[];
  /** project and personal skills, and plugins, a run here would load */
  skills: Array<{ name: string; source: string; hash: string }>;
  plugins: Array<{ name: string; dir: string; skills: string[]; mcp_servers: string[] }>;
  /** the oldest question the flower running here is waiting on (the inbox's waiting set), null when none */
  waiting: WaitingQuestion | null;
}

async function contexts(b: Backends, sids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!b.sessions || sids.length === 0) return out;
  try {
    for (const sid of sids) out.set(sid, await b.sessions.lastContext(sid, { projectKey: b.projectKey }));
  } catch {
    // a damaged or locked db: status still shows what the files say
  }
  return out;
}

type Verdict = NonNullable<ManifestRow['verdict']>;

/** One field from a file, safe to print: no escapes, no control bytes, no line breaks to forge lines with. */
export const one = (v: unknown): string => sanitize(String(v ?? ''), { keepColour: false }).replace(/[\r\n]+/g, ' ');

/** `achieved 5/5` — the outcome as people read it, with the pass count. */
export function verdictText(v: Verdict | null | undefined, zh: boolean): string {
  if (!v) return '';
  const words = zh
    ? { achieved: '达成', not_yet: '未达成', unreachable: '无法达成' }
    : { achieved: 'achieved', not_yet: 'not yet', unreachable: 'unreachable' };
  return `${words[v.outcome] ?? one(v.outcome)}${v.total ? ` ${v.passed}/${v.total}` : ''}`;
}

/**
 * What the folder remembers. The notes are read where the run kept them: lineage records the workbench
 * (an --isolate run moves it to `<parent>/.flower-<name>`), so status needs no --isolate flag.
 */
export async function statusOf(
  workspace: string,
  runDir: string,
  found: Discovery = { skills: [], plugins: [], warnings: [] },
  o: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<StatusReport> {
  // the store named by FLOWER_STORE / --store (a PostgreSQL one that cannot be used: one line, exit 1)
  const b = await backendsFor(o.env ?? process.env, RunLayout.of({ workspace, runDir, ...(o.cwd ? { cwd: o.cwd } : {}) }));
  try {
    return await report(workspace, runDir, found, b);
  } finally {
    b.close();
  }
}

async function report(workspace: string, runDir: string, found: Discovery, b: Backends): Promise<StatusReport> {
  // strict: damage throws its StateCorrupt (reported by `refusing`), it is not read as "nothing yet"
  const st = await wakeState(workspace, { runDir, keep: false, strict: true, records: b.records });
  const layout = st.layout;
  const notes = layout.notes;
  const rows = await Manifest.read(b.records, { strict: true });
  const waiting = (await b.records.inbox.readWaiting().catch(() => null))?.questions[0] ?? null;
  const ctx = await contexts(b, Object.values(st.steps));
  const byRun = new Map<string, ManifestRow[]>();
  for (const r of rows) byRun.set(r.run, [...(byRun.get(r.run) ?? []), r]);
  const handoffs = fs.existsSync(notes)
    ? fs
        .readdirSync(notes)
        .filter((f) => RunLayout.isHandoffName(f))
        .sort()
    : [];
  return {
    workspace,
    runDir,
    brief: { confirmed: st.waking, path: st.brief?.path ?? null, missing: st.brief ? st.brief.missing() : [] },
    goal: { checks: st.checks, unverifiable: st.goal?.unverifiable.length ?? 0, path: st.goal ? layout.goal : null },
    woke: st.woke,
    steps: Object.entries(st.steps).map(([step, session]) => ({ step, session, context: ctx.get(session) ?? 0 })),
    runs: [...byRun.entries()].map(([run, rs]) => ({
      run,
      rows: rs.length,
      ok: rs.every((r) => r.ok),
      cost_usd: rs.reduce((a, r) => a + (r.cost_usd || 0), 0),
      started_at: rs[0]!.started_at,
      last_step: rs.at(-1)!.step,
      verdict: rs.filter((r) => r.verdict).at(-1)?.verdict ?? null,
    })),
    verdict: (() => {
      const r = rows.filter((x) => x.verdict).at(-1);
      return r?.verdict ? { ...r.verdict, run: r.run, step: r.step } : null;
    })(),
    total_cost_usd: rows.reduce((a, r) => a + (r.cost_usd || 0), 0),
    handoffs,
    skills: found.skills.map((x) => ({ name: x.name, source: x.source, hash: x.hash })),
    plugins: found.plugins.map((p) => ({ name: p.name, dir: p.dir, skills: p.skills.map((x) => x.name), mcp_servers: p.mcpServers })),
    waiting,
  };
}

/** The project to read: -r as given, else found upward from -w (or here) like git; a missing -w fails. */
function where(g: GlobalOptions, io: CliIO) {
  const lang = detectLang(io.env);
  return locate({ ...g, cwd: io.cwd ?? process.cwd(), noSuchFolder: usageTexts(lang).noSuchFolder, zh: lang === 'zh' });
}

export function status(o: { json?: boolean }, g: GlobalOptions, io: CliIO): Promise<number> {
  return refusing(io, { json: o.json ?? false, zh: detectLang(io.env) === 'zh' }, () => statusCommand(o, g, io));
}

async function statusCommand(o: { json?: boolean }, g: GlobalOptions, io: CliIO): Promise<number> {
  const at = where(g, io);
  // skills of the project found (not of the folder status was typed in)
  const found = discoverFor({ ...g, workspace: at.workspace }, io);
  const s = await statusOf(at.workspace, at.runDir, found, { env: io.env, cwd: io.cwd ?? process.cwd() });
  if (o.json) {
    // one line: --json output is NDJSON on every command
    io.stdout.write(`${JSON.stringify(s)}\n`);
    return EXIT.ok;
  }
  const zh = detectLang(io.env) === 'zh';
  const out: string[] = [];
  out.push(`flower status — ${one(tilde(s.workspace))}  (runs: ${one(tilde(s.runDir))})`);
  if (s.woke === 0 && s.runs.length === 0 && !s.brief.path) {
    out.push(zh ? '  这里还没跑过 flower。' : '  flower has not run here yet.');
  }
  out.push(
    s.brief.confirmed
      ? `  ${zh ? '需求已确认' : 'brief confirmed'} (${s.brief.path})`
      : s.brief.path
        ? `  ${zh ? '需求未完成,缺' : 'brief incomplete, missing'}: ${one(s.brief.missing.join(', '))}`
        : `  ${zh ? '还没有需求确认书' : 'no brief yet'}`,
  );
  if (s.goal.path)
    out.push(
      `  ${zh ? `目标 ${s.goal.checks} 条` : `goal: ${s.goal.checks} checks`}${s.goal.unverifiable ? (zh ? `,其中 ${s.goal.unverifiable} 条此环境无法验证` : `, ${s.goal.unverifiable} not verifiable here`) : ''} (${s.goal.path})`,
    );
  if (s.woke) out.push(`  ${zh ? `已唤醒 ${s.woke} 次,下次是第 ${s.woke + 1} 次` : `woken ${s.woke} times; the next run is wake #${s.woke + 1}`}`);
  const lang = zh ? 'zh' : 'en';
  for (const st of s.steps)
    out.push(`  ${one(stepLabel(st.step, lang))} -> ${one(st.session)}${st.context ? ` · ${zh ? '上下文' : 'context'} ${tokens(st.context)}` : ''}`);
  for (const h of s.handoffs) out.push(`  # ${one(h)}`);
  if (s.skills.length) out.push(`  ${zh ? '技能' : 'skills'}: ${one(s.skills.map((x) => `${x.name} (${x.source})`).join(', '))}`);
  for (const p of s.plugins)
    out.push(
      `  ${zh ? '插件' : 'plugin'} ${one(p.name)}${p.skills.length ? ` · ${p.skills.join(', ')}` : ''}${p.mcp_servers.length ? ` · MCP ${p.mcp_servers.join(', ')}` : ''}`,
    );
  for (const w of found.warnings) out.push(`  ! ${one(w)}`);
  if (s.waiting) out.push(waitingLine(s.waiting, zh));
  if (s.runs.length) {
    const last = s.runs.at(-1)!;
    out.push(
      `  ${zh ? '最近一次' : 'last run'} ${one(last.run)}: ${last.rows} ${zh ? '行' : 'rows'}, $${money(last.cost_usd)}, ${last.ok ? 'ok' : zh ? '有失败' : 'had failures'}, ${zh ? '最后一步' : 'last step'} ${one(stepLabel(last.last_step, lang))}`,
    );
    if (s.verdict)
      out.push(
        `  ${zh ? '最近判定' : 'last verdict'}: ${verdictText(s.verdict, zh)} (${one(stepLabel(s.verdict.step, lang))}, ${zh ? '运行' : 'run'} ${one(s.verdict.run)})`,
      );
    out.push(`  ${zh ? '这里总共花了' : 'spent here in all'} $${money(s.total_cost_usd)} ${zh ? `(${s.runs.length} 次运行)` : `over ${s.runs.length} runs`}`);
  }
  const cols = wrapWidth(io.stdout, io.env);
  io.stdout.write(`${out.flatMap((l) => hangingLines(l, cols, 2)).join('\n')}\n`);
  return EXIT.ok;
}

/** What the run is waiting for, since when, and how to answer it. */
function waitingLine(q: WaitingQuestion, zh: boolean): string {
  const opts = q.options.map((o, i) => `${i + 1}. ${one(o)}`).join('  ');
  const since = one(q.asked_at).replace('T', ' ').slice(0, 19);
  return zh
    ? `  ? 在等回答(从 ${since} 起):${one(q.id)} ${one(q.question)}${opts ? `  ${opts}` : ''} —— 用 flower answer N 或 flower answer "回答"`
    : `  ? waiting for an answer since ${since}: ${one(q.id)} ${one(q.question)}${opts ? `  ${opts}` : ''} — flower answer N, or flower answer "text"`;
}

export function log(o: { limit: number; json?: boolean }, g: GlobalOptions, io: CliIO): Promise<number> {
  return refusing(io, { json: o.json ?? false, zh: detectLang(io.env) === 'zh' }, () => logCommand(o, g, io));
}

async function logCommand(o: { limit: number; json?: boolean }, g: GlobalOptions, io: CliIO): Promise<number> {
  const at = where(g, io);
  const b = await backendsFor(io.env, RunLayout.of({ cwd: io.cwd ?? process.cwd(), workspace: at.workspace, runDir: at.runDir }));
  let all: ManifestRow[];
  try {
    all = await Manifest.read(b.records, { strict: true });
    // the lineage too: a damaged one is reported here as by status (its rows are still in the manifest)
    await b.records.readLineage(at.workspace, { keep: false, strict: true });
  } finally {
    b.close();
  }
  const rows = all.slice(-Math.max(1, o.limit));
  if (o.json) {
    for (const r of rows) io.stdout.write(`${JSON.stringify(r)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stdout.write('(no steps recorded yet)\n');
    return EXIT.ok;
  }
  const zh = detectLang(io.env) === 'zh';
  // the run id column: rows of one run read together, and `status` names runs by it
  const idWidth = Math.max(...rows.map((r) => one(r.run).length), 3);
  const cols = wrapWidth(io.stdout, io.env);
  for (const r of rows) {
    const when = one(r.started_at).replace('T', ' ').slice(0, 19);
    const mark = r.ok ? '+' : 'x';
    const extra = [r.attempts > 1 ? `${r.attempts} attempts` : '', r.resumed ? 'resumed' : '', r.retired?.length ? `${r.retired.length} handed off` : '']
      .filter(Boolean)
      .join(', ');
    const verdict = r.verdict ? ` · ${zh ? '判定' : 'verdict'} ${verdictText(r.verdict, zh)}` : '';
    const line = `${when}  ${one(r.run).padEnd(idWidth)}  ${mark} ${one(stepLabel(r.step, zh ? 'zh' : 'en'))}  $${money(Number(r.cost_usd) || 0)} · ${Number(r.num_turns) || 0} turns · ${clockDuration(Number(r.duration_s) || 0)} · ctx ${tokens(Number(r.context) || 0)}${verdict}${extra ? ` · ${extra}` : ''}${r.ok ? '' : ` · ${one((r.error ?? '').split('\n')[0])}`}`;
    io.stdout.write(`${hangingLines(line, cols, 4).join('\n')}\n`);
  }
  return EXIT.ok;
}
