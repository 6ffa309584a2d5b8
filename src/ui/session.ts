/**
 * A session's page: the figures of the original's run analysis, the main thread's context curve, its
 * subagents, and the transcript one page at a time (a 100k-entry session must not freeze the tab):
 * sanitised, tool calls and results collapsed, long outputs cut (spilled ones show their pointer).
 */
import { curveSvg } from './curve.js';
import { href, type PageContext } from './layout.js';
import { cut, esc, percent, tokens } from './sanitize.js';
import { resultText, type ModelCall, type SessionFigures } from './transcript.js';
import type { TranscriptPage } from './source.js';

export const PAGE_SIZE = 200;
const TEXT_MAX = 4000;
const TOOL_MAX = 2000;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

function clip(s: string, max: number): string {
  const c = cut(s, max);
  return esc(c.text) + (c.omitted ? `<span class="omitted"> … ${c.omitted.toLocaleString('en')} more characters</span>` : '');
}

function blockHtml(b: unknown): string {
  if (typeof b === 'string') return `<pre class="text">${clip(b, TEXT_MAX)}</pre>`;
  if (!isRec(b)) return '';
  switch (b.type) {
    case 'text':
      return `<pre class="text">${clip(String(b.text ?? ''), TEXT_MAX)}</pre>`;
    case 'thinking':
      return `<details class="thinking"><summary>thinking</summary><pre>${clip(String(b.thinking ?? ''), TEXT_MAX)}</pre></details>`;
    case 'tool_use':
      return `<details class="tool-use"><summary>tool call <code>${esc(b.name)}</code></summary><pre>${clip(JSON.stringify(b.input ?? null, null, 1), TOOL_MAX)}</pre></details>`;
    case 'tool_result': {
      const t = resultText(b.content);
      return `<details class="tool-result${b.is_error === true ? ' error' : ''}"><summary>tool result${b.is_error === true ? ' (error)' : ''} · ${t.length.toLocaleString('en')} chars</summary><pre>${clip(t, TOOL_MAX)}</pre></details>`;
    }
    default:
      return `<span class="block">[${esc(b.type ?? 'block')}]</span>`;
  }
}

export function entryHtml(seq: number, e: unknown): string {
  if (!isRec(e)) return `<li class="entry other" value="${seq + 1}">(unreadable entry)</li>`;
  const type = String(e.type ?? '?');
  const msg = isRec(e.message) ? e.message : null;
  if ((type === 'user' || type === 'assistant') && msg) {
    const content = Array.isArray(msg.content) ? msg.content : [msg.content];
    const usage =
      type === 'assistant' && isRec(msg.usage)
        ? ` <span class="usage">context ${tokens(Number(msg.usage.input_tokens ?? 0) + Number(msg.usage.cache_creation_input_tokens ?? 0) + Number(msg.usage.cache_read_input_tokens ?? 0))}</span>`
        : '';
    return `<li class="entry ${type}${e.isSidechain === true ? ' sidechain' : ''}" value="${seq + 1}"><span class="role">${type}</span>${usage}${content.map(blockHtml).join('')}</li>`;
  }
  return `<li class="entry other" value="${seq + 1}"><span class="role">${esc(type)}</span></li>`;
}

export interface SessionInput {
  sid: string;
  sub: string | undefined;
  calls: ModelCall[];
  figures: SessionFigures;
  subagents: string[];
  page: TranscriptPage;
  from: number;
  window: number;
  threshold: number;
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
  const out: string[] = [];
  out.push(`<h1>session <code class="sid">${esc(i.sid)}</code>${i.sub ? ` · <code>${esc(i.sub)}</code>` : ''}</h1>`);
  if (!i.sub) {
    out.push(figuresHtml(i.figures));
    out.push(`<div class="curve-box">${curveSvg({ calls: i.calls, window: i.window, threshold: i.threshold, label: `session ${i.sid}` })}</div>`);
  }
  if (i.subagents.length) {
    out.push(
      `<p class="subagents">subagents: ${i.subagents.map((s) => `<a href="${esc(href(ctx, base, { sub: s }))}"><code>${esc(s.replace(/^subagents\//, ''))}</code></a>`).join(' · ')}${i.sub ? ` · <a href="${esc(href(ctx, base))}">main thread</a>` : ''}</p>`,
    );
  }
  const { total, entries } = i.page;
  const last = entries.length ? entries.at(-1)!.seq + 1 : i.from;
  const pager = (): string => {
    const links: string[] = [];
    if (i.from > 0) links.push(`<a class="prev" href="${esc(href(ctx, base, { sub: i.sub, from: Math.max(0, i.from - PAGE_SIZE) }))}">← earlier</a>`);
    links.push(`<span class="range">entries ${total ? i.from + 1 : 0}–${last} of ${total.toLocaleString('en')}</span>`);
    if (last < total) links.push(`<a class="next" href="${esc(href(ctx, base, { sub: i.sub, from: last }))}">later →</a>`);
    if (total > PAGE_SIZE) links.push(`<a class="end" href="${esc(href(ctx, base, { sub: i.sub, from: Math.max(0, total - PAGE_SIZE) }))}">newest</a>`);
    return `<nav class="pager">${links.join(' ')}</nav>`;
  };
  out.push(pager());
  out.push(`<ol class="transcript">${entries.map((e) => entryHtml(e.seq, e.entry)).join('\n')}</ol>`);
  out.push(pager());
  return out.join('\n');
}
