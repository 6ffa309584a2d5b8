/**
 * A session's page: the step and run it belongs to with the step's attempts, the figures of the
 * original's run analysis, the main thread's context curve, the subagents as a tree, what the step
 * changed, the timeline of its calls, search, and the transcript one page at a time (a 100k-entry
 * session must not freeze the tab): the conversation only unless harness records are asked for
 * (`?harness=1`), tool calls by kind (./entries.ts), long outputs cut (spilled ones show their pointer).
 */
import { curveSvg } from './curve.js';
import { entryHtml, isConversation, type EntryContext } from './entries.js';
import { href, type PageContext } from './layout.js';
import { esc, percent, tokens } from './sanitize.js';
import type { SearchHit, TranscriptPage, UiRow } from './source.js';
import { timelineHtml } from './timeline.js';
import type { Trace } from './trace.js';
import { changesHtml, hitsHtml, stepHtml, treeHtml } from './trace-view.js';
import type { ModelCall, SessionFigures } from './transcript.js';

export const PAGE_SIZE = 200;

export interface SessionInput {
  sid: string;
  sub: string | undefined;
  calls: ModelCall[];
  figures: SessionFigures;
  page: TranscriptPage;
  from: number;
  window: number;
  threshold: number;
  /** the manifest rows naming this session (./trace-view.ts rowsOfSession) */
  rows: UiRow[];
  trace: Trace;
  /** show harness records too */
  harness: boolean;
  q: string;
  hits: SearchHit[] | null;
}

/** A lane's name: the main thread, or the subagent's task. */
export function laneNamer(t: Trace): (lane: string) => string {
  const names = new Map(t.subagents.map((s) => [s.subpath, s.description || s.agentId]));
  return (lane) => (lane ? (names.get(lane) ?? lane.replace(/^subagents\//, '')) : 'main thread');
}

function figuresHtml(f: SessionFigures): string {
  const tools = Object.entries(f.tools).sort((a, b) => b[1] - a[1]);
  return `<table class="figures"><tbody>
<tr><th>model calls</th><td>${f.calls} main thread · ${f.subagentCalls} in subagents</td></tr>
<tr><th>context</th><td>last ${tokens(f.lastContext)} · peak ${tokens(f.peakContext)}</td></tr>
<tr><th>cache hit rate</th><td class="cache-hit">${percent(f.cacheHitRate)}</td></tr>
<tr><th>subagent share of cost</th><td class="sub-share">${percent(f.subagentCostShare)} <span class="note">(estimated from tokens at relative prices)</span></td></tr>
<tr><th>spill savings</th><td class="spill">${f.spills} output${f.spills === 1 ? '' : 's'} spilled · ${f.spillSavedChars.toLocaleString('en')} characters kept out of the context</td></tr>
<tr><th>tool uses</th><td class="tools">${tools.length ? tools.map(([n, c]) => `<code>${esc(n)}</code> ${c}`).join(' · ') : 'none'}</td></tr>
</tbody></table>`;
}

export function sessionBody(ctx: PageContext, i: SessionInput): string {
  const base = `/session/${encodeURIComponent(i.sid)}`;
  const lane = laneNamer(i.trace);
  const keep = { sub: i.sub, harness: i.harness ? 1 : undefined };
  const { total, entries } = i.page;
  const out: string[] = [];
  out.push(
    `<h1>session <code class="sid">${esc(i.sid)}</code>${i.sub ? ` · <span class="sub-task">${esc(lane(i.sub))}</span> <code>${esc(i.sub)}</code>` : ''}</h1>`,
  );
  out.push(stepHtml(ctx, i.rows, i.sid));
  if (i.hits)
    out.push(
      `<section class="search-results"><h2>matches for <q>${esc(i.q)}</q>: ${i.hits.length}</h2>${hitsHtml(ctx, i.sid, i.hits, i.q, PAGE_SIZE, lane)}</section>`,
    );
  const cost = i.rows.filter((r) => r.session_id === i.sid).reduce((a, r) => a + r.cost_usd, 0);
  out.push(treeHtml(ctx, i.sid, i.trace, cost, i.sub));
  if (i.trace.from > 0)
    out.push(
      `<p class="note trace-window">the trace (subagents, changes, timeline) covers the newest entries, from entry ${(i.trace.from + 1).toLocaleString('en')} of ${total.toLocaleString('en')}</p>`,
    );
  if (!i.sub) {
    out.push(figuresHtml(i.figures));
    out.push(`<div class="curve-box">${curveSvg({ calls: i.calls, window: i.window, threshold: i.threshold, label: `session ${i.sid}` })}</div>`);
    out.push(changesHtml(i.trace, lane));
    out.push(timelineHtml(i.trace.items, lane));
  } else {
    out.push(
      timelineHtml(
        i.trace.items.filter((t) => t.lane === i.sub),
        lane,
      ),
    );
  }
  const last = entries.length ? entries.at(-1)!.seq + 1 : i.from;
  const pager = (): string => {
    const links: string[] = [];
    if (i.from > 0) links.push(`<a class="prev" href="${esc(href(ctx, base, { ...keep, from: Math.max(0, i.from - PAGE_SIZE) }))}">← earlier</a>`);
    links.push(`<span class="range">entries ${total ? i.from + 1 : 0}–${last} of ${total.toLocaleString('en')}</span>`);
    if (last < total) links.push(`<a class="next" href="${esc(href(ctx, base, { ...keep, from: last }))}">later →</a>`);
    if (total > PAGE_SIZE) links.push(`<a class="end" href="${esc(href(ctx, base, { ...keep, from: Math.max(0, total - PAGE_SIZE) }))}">newest</a>`);
    return `<nav class="pager">${links.join(' ')}</nav>`;
  };
  const shown = i.harness ? entries : entries.filter((e) => isConversation(e.entry));
  const hidden = entries.length - shown.length;
  const toggle = i.harness
    ? `<a class="harness-toggle" href="${esc(href(ctx, base, { sub: i.sub, from: i.from || undefined }))}">hide harness records</a>`
    : `<a class="harness-toggle" href="${esc(href(ctx, base, { sub: i.sub, from: i.from || undefined, harness: 1 }))}">show harness records${hidden ? ` (${hidden} on this page)` : ''}</a>`;
  const ectx: EntryContext = {
    changes: new Map(i.trace.changes.map((c) => [c.toolUseId, c])),
    tools: new Map(i.trace.items.filter((t) => t.kind === 'tool').map((t) => [t.id, t.tool])),
  };
  out.push(`<h2 class="transcript-head">transcript</h2><p class="transcript-tools">${toggle}</p>`);
  out.push(pager());
  out.push(`<ol class="transcript">${shown.map((e) => entryHtml(e.seq, e.entry, ectx)).join('\n')}</ol>`);
  out.push(pager());
  return out.join('\n');
}
