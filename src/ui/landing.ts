/**
 * The landing page's body: a summary line, the compact overview of runs (./overview.ts), then one card
 * per run, newest first — each opening with its request and state (the question it waits on, or why it
 * failed) and folding its steps (./runs.ts) in a <details>; only the newest card starts open.
 */
import type { PageContext } from './layout.js';
import { overviewTable, runViews, stateBlock, STATE_TEXT, type RunView } from './overview.js';
import { groupRuns, notesHtml, runSeconds, stepRow, when, type RunsInput } from './runs.js';
import { cut, duration, esc, money, tokens } from './sanitize.js';

function runCard(ctx: PageContext, v: RunView, i: RunsInput, open: boolean): string {
  const { g, live } = v;
  const secs = runSeconds(g);
  const took = g.ended ? `took ${duration(secs)}` : live ? `running for ${duration(secs)}` : 'stopped before its end';
  const verdict = v.verdict?.total ? ` · verdict ${esc(v.verdict.outcome)} ${v.verdict.passed}/${v.verdict.total}` : '';
  return `<section class="run state-${v.state} ${g.ok ? 'ok' : 'failed'}" id="run-${esc(g.run)}" data-run="${esc(g.run)}">
<details class="run-card" data-key="run-${esc(g.run)}"${open ? ' open' : ''}><summary>
<h2 class="request">${v.request ? esc(cut(v.request, 400).text) : '<span class="no-request">—</span>'}</h2>
<p class="run-head"><span class="state-badge state-${v.state}">${STATE_TEXT[v.state]}</span> <span class="run-id">${esc(g.run)}</span> <span class="wake">wake #${g.wake}</span></p>
<p class="run-meta">started ${when(g.started)} · ${took} · cost <span class="run-cost">${g.ended || g.cost ? money(g.cost) : '–'}</span>${verdict}</p>
</summary>
${stateBlock(v)}
<div class="table-scroll"><table class="steps"><thead><tr><th>step</th><th>status</th><th>cost</th><th>turns</th><th>time</th><th>context</th><th>session</th></tr></thead><tbody>
${g.rows.map((r) => stepRow(ctx, r, i, i.snap.notes.handoffs, live, v.state === 'waiting')).join('\n')}
</tbody></table></div></details></section>`;
}

export function runsBody(ctx: PageContext, i: RunsInput): string {
  const groups = groupRuns(i.snap.rows).reverse();
  const views = runViews(groups, i);
  const total = i.snap.rows.reduce((a, r) => a + (r.cost_usd || 0), 0);
  const out: string[] = [];
  out.push(
    `<p class="summary"><span class="count">${groups.length} run${groups.length === 1 ? '' : 's'}</span> · total ${money(total)} · run dir <code>${esc(i.snap.runDir)}</code> · window ${tokens(i.window)}, handoff at ${tokens(i.threshold)}</p>`,
  );
  if (groups.length === 0) out.push('<p class="empty">No runs recorded yet. This page updates by itself when one starts.</p>');
  out.push(overviewTable(views, i));
  views.forEach((v, k) => {
    out.push(runCard(ctx, v, i, k === 0));
  });
  out.push(notesHtml(i.snap));
  return out.join('\n');
}
