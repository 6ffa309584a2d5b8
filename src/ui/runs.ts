/**
 * The landing page: every run in the manifest (newest first, its id as text), its steps in order with
 * ok/failed, failure kind and reason, cost, turns and duration, the judge's verdict with per-check
 * evidence, each work step's context curve (no click needed), its handoff generations and note, and the
 * workspace's brief, goal checklist and Q&A log. The page itself (overview table + cards) is ./landing.ts.
 */
import { Goal, Handoff, HANDOFF_NAMES, HANDOFF_SECTIONS, Verdict } from '../docs/index.js';
import { JUDGE_MARK, SEED_STEPS, safeStepName, stepLabel, type WaitingSet } from '../state/index.js';
import { curveSvg } from './curve.js';
import type { NoteFile, Snapshot, UiRow } from './source.js';
import { href, type PageContext } from './layout.js';
import { briefHtml } from './markdown.js';
import { cut, duration, esc, money, tokens } from './sanitize.js';
import { callsBetween, type ModelCall, type VerdictCall } from './transcript.js';

export interface RunsInput {
  snap: Snapshot;
  /** main-thread calls by session id */
  calls: ReadonlyMap<string, ModelCall[]>;
  /** submit_verdict calls of judge sessions, by session id */
  verdicts: ReadonlyMap<string, VerdictCall | null>;
  window: number;
  threshold: number;
  /** what the live run waits on (the durable inbox's waiting set), if anything */
  waiting?: WaitingSet | null;
}

export interface RunGroup {
  run: string;
  rows: UiRow[];
  started: string;
  ended: string | null;
  cost: number;
  ok: boolean;
  /** 1 for the first run recorded here */
  wake: number;
}

const JUDGE = new RegExp(`${JUDGE_MARK}#\\d+$`);
const STARTER_STEPS = new Set<string>([SEED_STEPS.clarify, SEED_STEPS.goal]);

export const isJudge = (step: string): boolean => JUDGE.test(step);
/** A work step: anything but the starter's clarify and goal steps and the judges. */
export const isWork = (step: string): boolean => !isJudge(step) && !STARTER_STEPS.has(step);

/** Rows grouped by `run`, in the order the runs started; `wake` counts from 1. */
export function groupRuns(rows: readonly UiRow[]): RunGroup[] {
  const by = new Map<string, UiRow[]>();
  for (const r of rows) by.set(r.run, [...(by.get(r.run) ?? []), r]);
  const groups = [...by.entries()].map(([run, rs]) => {
    const ends = rs
      .map((r) => r.ended_at)
      .filter((e): e is string => !!e)
      .sort();
    const starts = rs
      .map((r) => r.started_at)
      .filter(Boolean)
      .sort();
    return {
      run,
      rows: rs,
      started: starts[0] ?? '',
      ended: rs.some((r) => !r.ended_at) ? null : (ends.at(-1) ?? null),
      cost: rs.reduce((a, r) => a + (r.cost_usd || 0), 0),
      ok: rs.every((r) => r.ok),
      wake: 0,
    };
  });
  groups.sort((a, b) => (a.started < b.started ? -1 : a.started > b.started ? 1 : a.run.localeCompare(b.run)));
  groups.forEach((g, i) => {
    g.wake = i + 1;
  });
  return groups;
}

export function runSeconds(g: RunGroup, now = Date.now()): number {
  const a = Date.parse(g.started);
  const b = g.ended ? Date.parse(g.ended) : now;
  return Number.isFinite(a) && Number.isFinite(b) ? Math.max(0, (b - a) / 1000) : NaN;
}

export const when = (iso: string) => esc(iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'));

/** The verdict of a judge row: the structured field, else the judge's submit_verdict call, else its text. */
export function verdictOf(
  r: UiRow,
  call: VerdictCall | null | undefined,
): { outcome: string; passed?: number; total?: number; reason: string; checks: VerdictCall['checks'] } {
  const checks = call?.checks ?? [];
  if (r.verdict) return { outcome: r.verdict.outcome, passed: r.verdict.passed, total: r.verdict.total, reason: call?.reason ?? '', checks };
  if (call?.state) {
    return { outcome: call.state, passed: checks.filter((c) => c.pass === true).length, total: checks.length, reason: call.reason, checks };
  }
  const parsed = Verdict.parse(r.text ?? '');
  return { outcome: parsed.state || 'unclear', reason: parsed.reason || r.text || '', checks: (parsed.checks ?? []).map((c) => ({ ...c })) };
}

function verdictHtml(r: UiRow, call: VerdictCall | null | undefined): string {
  if (!r.ok && !r.verdict && !call) return '';
  const v = verdictOf(r, call);
  const count = v.total !== undefined && v.total > 0 ? ` ${v.passed}/${v.total}` : '';
  const checks = v.checks.length
    ? `<ul class="checks">${v.checks.map((c) => `<li class="${c.pass === true ? 'pass' : 'fail'}"><span class="mark">${c.pass === true ? '✓' : c.pass === false ? '✗' : '?'}</span> ${esc(c.item)}${c.evidence ? ` <span class="evidence">— ${esc(cut(c.evidence, 600).text)}</span>` : ''}</li>`).join('')}</ul>`
    : '';
  const reason = v.reason ? `<p class="reason">${esc(cut(v.reason, 2000).text)}</p>` : '';
  return `<div class="verdict"><span class="outcome ${esc(v.outcome)}">verdict: ${esc(v.outcome)}${esc(count)}</span>${reason}${checks}</div>`;
}

function handoffHtml(note: NoteFile | undefined, step: string): string {
  if (!note) return '';
  const h = Handoff.parse(note.text, { step });
  const body =
    HANDOFF_SECTIONS.filter((s) => h[s])
      .map((s) => `<h4>${esc(HANDOFF_NAMES[s])}</h4><pre>${esc(cut(h[s], 8000).text)}</pre>`)
      .join('') || `<pre>${esc(cut(note.text, 20000).text)}</pre>`;
  return `<details class="handoff-note" data-key="handoff-${esc(step)}"><summary>handoff note <code>${esc(note.file)}</code></summary>${body}</details>`;
}

function generationsHtml(ctx: PageContext, r: UiRow): string {
  if (!r.retired?.length) return '';
  const chain = [...r.retired, r.session_id ?? '?'];
  return `<p class="generations">handoff generations: ${chain.map((s, i) => `<a href="${esc(href(ctx, `/session/${encodeURIComponent(s)}`))}"><code>${esc(s.slice(0, 8))}</code></a>${i < chain.length - 1 ? ' → ' : ''}`).join('')}</p>`;
}

/** A step row's status: ok, failed, or — without an end — running, waiting for you (a question waits), stopped. */
export function stepStatus(r: UiRow, live: boolean, waiting = false): 'ok' | 'failed' | 'running' | 'waiting' | 'stopped' {
  if (r.ok) return 'ok';
  if (r.ended_at) return 'failed';
  return live ? (waiting ? 'waiting' : 'running') : 'stopped';
}

export function stepRow(ctx: PageContext, r: UiRow, i: RunsInput, handoffs: Readonly<Record<string, NoteFile>>, live: boolean, waiting = false): string {
  const sid = r.session_id;
  const failure = r.failure ? `${r.failure.kind}: ${r.failure.message}` : (r.error ?? '');
  const sess = sid ? `<a class="session" href="${esc(href(ctx, `/session/${encodeURIComponent(sid)}`))}"><code>${esc(sid.slice(0, 8))}</code></a>` : '–';
  const status = stepStatus(r, live, waiting && !r.ended_at);
  // a step still going has no figures yet: dashes, not "$0.00 · 0 turns · 0"
  const going = !r.ended_at && !r.cost_usd && !r.num_turns;
  const head = `<tr class="step ${status}" data-step="${esc(r.step)}">
<td class="name">${esc(stepLabel(r.step, 'en'))}</td><td class="status">${status === 'waiting' ? 'waiting for you' : status}${r.failure ? ` <span class="kind">${esc(r.failure.kind)}</span>` : ''}</td>
<td class="cost">${going ? '–' : money(r.cost_usd)}</td><td class="turns">${going ? '–' : r.num_turns}</td><td class="dur">${r.ended_at ? duration(r.duration_s) : '–'}</td>
<td class="ctx">${going && !r.context ? '–' : tokens(r.context)}</td><td>${sess}</td></tr>`;
  const extra: string[] = [];
  if (!r.ok && failure) extra.push(`<p class="failure">${esc(cut(failure.split('\n')[0] ?? '', 600).text)}</p>`);
  if (isJudge(r.step) && sid) extra.push(verdictHtml(r, i.verdicts.get(sid)));
  if (isWork(r.step) && sid) {
    const sessions = [...(r.retired ?? []), sid];
    const calls = callsBetween(
      sessions.flatMap((s) => i.calls.get(s) ?? []),
      r.started_at,
      r.ended_at,
    );
    extra.push(`<div class="curve-box">${curveSvg({ calls, window: i.window, threshold: i.threshold, label: r.step })}</div>`);
    extra.push(generationsHtml(ctx, r));
    // a later round (干活#round2) is the same step and session: its note is the step's note
    extra.push(handoffHtml(handoffs[safeStepName(r.step)] ?? handoffs[safeStepName(r.step.replace(/#round\d+$/, ''))], r.step));
  } else if (!isJudge(r.step) && r.text) {
    extra.push(`<p class="said">${esc(cut(r.text, 300).text)}</p>`);
  }
  const more = extra.filter(Boolean).join('');
  return head + (more ? `<tr class="detail"><td colspan="7">${more}</td></tr>` : '');
}

export function notesHtml(snap: Snapshot): string {
  const n = snap.notes;
  if (!n.brief && !n.goal && !n.qa) return '';
  const out: string[] = ['<section class="notes"><h2>The workspace</h2>'];
  if (snap.lineage)
    out.push(`<p class="ws">workspace <code>${esc(snap.lineage.workspace)}</code> · woken ${snap.lineage.woke} time${snap.lineage.woke === 1 ? '' : 's'}</p>`);
  if (n.brief)
    out.push(
      `<details class="brief" data-key="brief" open><summary>brief <code>${esc(n.brief.file)}</code></summary>${briefHtml(cut(n.brief.text, 40000).text)}</details>`,
    );
  if (n.goal) {
    const g = Goal.parse(n.goal.text);
    out.push(
      `<details class="goal" data-key="goal" open><summary>goal <code>${esc(n.goal.file)}</code></summary>${g.statement ? `<p>${esc(g.statement)}</p>` : ''}<ul class="checklist">${g.checks.map((c) => `<li>${esc(c)}</li>`).join('')}</ul></details>`,
    );
  }
  if (n.qa)
    out.push(
      `<details class="qa" data-key="qa"><summary>questions and answers <code>${esc(n.qa.file)}</code></summary><pre>${esc(cut(n.qa.text, 40000).text)}</pre></details>`,
    );
  out.push('</section>');
  return out.join('');
}
