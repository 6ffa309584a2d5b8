/**
 * The landing page's overview: each run's request (the text the person typed), its state — running,
 * waiting for you (the question from the durable inbox), failed (the typed failure), achieved — the
 * judge's verdict n/m, cost, duration and start, as one compact table above the run cards, with a
 * small context curve per run.
 */
import type { WaitingSet } from '../state/index.js';
import { curveSvg } from './curve.js';
import type { LineageView, UiRow } from './source.js';
import { callsBetween, type ModelCall } from './transcript.js';
import { cut, duration, esc, money } from './sanitize.js';
import { isJudge, isWork, runSeconds, verdictOf, type RunGroup, type RunsInput } from './runs.js';

export type RunState = 'waiting' | 'running' | 'failed' | 'achieved' | 'done' | 'stopped';

export const STATE_TEXT: Readonly<Record<RunState, string>> = {
  waiting: 'waiting for you',
  running: 'running',
  failed: 'failed',
  achieved: 'achieved',
  done: 'done',
  stopped: 'stopped',
};

/** The question the live run waits on (the inbox's waiting set belongs to the run lock's holder). */
export type Waiting = WaitingSet['questions'][number];

/**
 * A run's state. `live`: its rows are not all ended and the run lock's holder lives. A live run with a
 * question waiting is waiting for you; an ended run is achieved when its last judge says so, failed when
 * a row failed, else done; a run that neither ended nor lives was stopped.
 */
export function runState(g: RunGroup, live: boolean, waiting: Waiting | null | undefined, judgeOutcome?: string): RunState {
  if (!g.ended) return live ? (waiting ? 'waiting' : 'running') : 'stopped';
  if (judgeOutcome === 'achieved') return 'achieved';
  return g.ok ? 'done' : 'failed';
}

/** The last failed row's typed failure (kind and reason), else its readable error. */
export function failureOf(g: RunGroup): { kind: string; reason: string } | null {
  const r = [...g.rows].reverse().find((x) => !x.ok && x.ended_at);
  if (!r) return null;
  if (r.failure) return { kind: r.failure.kind, reason: r.failure.message };
  return { kind: 'failed', reason: (r.error ?? '').split('\n')[0] ?? '' };
}

/**
 * The request of a run: the `request` its rows carry; for a run from before rows carried it, the
 * lineage's request when this run is the first one that started after it was recorded; else null.
 */
export function requestOf(g: RunGroup, groups: readonly RunGroup[], lineage: LineageView | null): string | null {
  const own = g.rows.find((r) => r.request)?.request;
  if (own) return own;
  const req = lineage?.request;
  if (!req?.text.trim() || !req.at) return null;
  const first = groups.filter((x) => x.started >= req.at).sort((a, b) => (a.started < b.started ? -1 : 1))[0];
  return first === g && !g.rows.some((r) => r.request) ? req.text : null;
}

/** The last judge row's verdict of a run, if a judge ran. */
export function lastVerdict(g: RunGroup, i: RunsInput): ReturnType<typeof verdictOf> | null {
  const r = [...g.rows].reverse().find((x) => isJudge(x.step) && x.ended_at);
  return r ? verdictOf(r, r.session_id ? i.verdicts.get(r.session_id) : undefined) : null;
}

/** Main-thread calls of a run's work steps, in order (the small curve of the overview). */
export function runCalls(rows: readonly UiRow[], calls: ReadonlyMap<string, ModelCall[]>): ModelCall[] {
  return rows
    .filter((r) => isWork(r.step) && r.session_id)
    .flatMap((r) =>
      callsBetween(
        [...(r.retired ?? []), r.session_id!].flatMap((s) => calls.get(s) ?? []),
        r.started_at,
        r.ended_at,
      ),
    );
}

export interface RunView {
  g: RunGroup;
  live: boolean;
  state: RunState;
  request: string | null;
  verdict: ReturnType<typeof verdictOf> | null;
  waiting: Waiting | null;
}

export function runViews(groups: readonly RunGroup[], i: RunsInput & { waiting?: WaitingSet | null }): RunView[] {
  const q = i.waiting?.questions[0] ?? null;
  return groups.map((g, k) => {
    // a row without an end is running only in the newest run, and only while the run lock's holder lives
    const live = !g.ended && k === 0 && i.snap.lock !== 'free';
    const verdict = lastVerdict(g, i);
    const waiting = live ? q : null;
    return { g, live, state: runState(g, live, waiting, verdict?.outcome), request: requestOf(g, groups, i.snap.lineage), verdict, waiting };
  });
}

const started = (iso: string) =>
  esc(
    iso
      .replace('T', ' ')
      .replace(/\.\d+Z$|Z$/, '')
      .slice(0, 16),
  );

/** The compact table above the cards: one row per run, newest first. */
export function overviewTable(views: readonly RunView[], i: RunsInput): string {
  if (views.length === 0) return '';
  const rows = views.map((v) => {
    const count = v.verdict?.total ? `${v.verdict.outcome} ${v.verdict.passed}/${v.verdict.total}` : v.verdict ? v.verdict.outcome : '–';
    const secs = runSeconds(v.g);
    const fail = v.state === 'failed' ? failureOf(v.g) : null;
    const spark = curveSvg({
      calls: runCalls(v.g.rows, i.calls),
      window: i.window,
      threshold: i.threshold,
      label: `run ${v.g.run}`,
      size: 'small',
      width: 120,
      height: 28,
    });
    return `<tr class="run-row state-${v.state}" data-run="${esc(v.g.run)}">
<td class="request"><a href="#run-${esc(v.g.run)}">${v.request ? esc(cut(v.request, 140).text) : '—'}</a></td><td class="wake">#${v.g.wake}</td>
<td class="state"><span class="state-badge state-${v.state}">${STATE_TEXT[v.state]}</span>${fail ? ` <span class="kind">${esc(fail.kind)}</span>` : ''}</td>
<td class="verdict-count">${esc(count)}</td><td class="cost">${v.g.ended || v.g.cost ? money(v.g.cost) : '–'}</td><td class="dur">${duration(secs)}</td><td class="started">${started(v.g.started)}</td><td class="spark">${spark}</td></tr>`;
  });
  return `<div class="table-scroll"><table class="overview"><thead><tr><th>request</th><th>wake</th><th>state</th><th>verdict</th><th>cost</th><th>time</th><th>started</th><th>context</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></div>`;
}

/** What a run card says under its request: the question it waits on, or why it failed. */
export function stateBlock(v: RunView): string {
  if (v.state === 'waiting' && v.waiting) {
    const q = v.waiting;
    const opts = q.options.length ? `<ol class="waiting-options">${q.options.map((o) => `<li>${esc(o)}</li>`).join('')}</ol>` : '';
    return `<div class="waiting-for-you" data-qid="${esc(q.id)}"><p><strong>waiting for you</strong> since ${esc(q.asked_at.replace('T', ' ').slice(0, 19))} — <a href="#ask">answer it above</a></p><p class="waiting-question">${esc(cut(q.question, 4000).text)}</p>${opts}</div>`;
  }
  if (v.state === 'failed') {
    const f = failureOf(v.g);
    if (f) return `<p class="run-failure"><span class="kind">${esc(f.kind)}</span> ${esc(cut(f.reason, 600).text)}</p>`;
  }
  return '';
}
