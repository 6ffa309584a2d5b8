/**
 * The timeline of a session: every model call and tool call (main thread and subagents) with its start
 * and duration, a bar scaled to the longest, the long ones marked. Bars are SVG rects (the page's CSP
 * allows no inline style). A session with more calls than fit shows its longest ones, in time order.
 */
import { duration, esc } from './sanitize.js';
import type { TimelineItem } from './trace.js';

export const TIMELINE_MAX = 300;

export interface TimelineView {
  rows: TimelineItem[];
  total: number;
  longest: number;
  t0: number;
}

/** What the timeline shows: all items, or the `max` longest in time order. Pure. */
export function timelineView(items: readonly TimelineItem[], max = TIMELINE_MAX): TimelineView {
  const len = (i: TimelineItem) => Math.max(0, i.end - i.start);
  const t0 = items.reduce((a, i) => (Number.isFinite(i.start) ? Math.min(a, i.start) : a), Infinity);
  const kept = items.length <= max ? [...items] : [...items].sort((a, b) => len(b) - len(a)).slice(0, max);
  kept.sort((a, b) => a.start - b.start);
  return { rows: kept, total: items.length, longest: kept.reduce((a, i) => Math.max(a, len(i)), 0), t0: Number.isFinite(t0) ? t0 : 0 };
}

export function timelineHtml(items: readonly TimelineItem[], laneName: (lane: string) => string): string {
  if (!items.length) return '';
  const v = timelineView(items);
  const rows = v.rows.map((i) => {
    const ms = Math.max(0, i.end - i.start);
    const w = v.longest > 0 ? Math.max(1, Math.round((ms / v.longest) * 1000)) : 1;
    const long = v.longest > 0 && ms >= v.longest / 2;
    const cls = `tl ${i.kind}${i.error ? ' error' : ''}${long ? ' long' : ''}`;
    return `<tr class="${cls}" data-ms="${ms}"><td class="at">+${esc(duration((i.start - v.t0) / 1000))}</td><td class="lane">${esc(laneName(i.lane))}</td><td class="what">${esc(i.label)}</td><td class="dur">${esc(duration(ms / 1000))}</td><td class="bar"><svg viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true"><rect width="${w}" height="10"/></svg></td></tr>`;
  });
  const note =
    v.total > v.rows.length
      ? `<p class="note">the ${v.rows.length} longest of ${v.total.toLocaleString('en')} calls, in time order</p>`
      : `<p class="note">${v.total} calls · bars scaled to the longest (${esc(duration(v.longest / 1000))})</p>`;
  return `<section class="timeline"><h2>timeline</h2>${note}<table class="timeline"><thead><tr><th>start</th><th>who</th><th>call</th><th>took</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}
