/**
 * The context curve: main-thread context per model call as an inline SVG — one <circle> per call (its
 * numbers in attributes and a <title>), the handoff threshold and the window as lines, a dashed
 * vertical line where a session was retired and its successor took over. Server-rendered and
 * scriptless, so it prints, reads in a screen reader (role="img" + aria-label) and needs no canvas.
 *
 * The y axis is a square-root scale with labelled ticks: a 14K context under a 1M window would be a
 * flat line at the bottom on a linear scale, while the lines at 750K and 1M must stay on the chart.
 */
import type { ModelCall } from './transcript.js';
import { esc, tokens } from './sanitize.js';

export interface CurveInput {
  calls: readonly ModelCall[];
  window: number;
  threshold: number;
  /** who the curve is about, e.g. the step name (goes into the aria-label and the title) */
  label: string;
  width?: number;
  height?: number;
}

const PAD = { left: 46, right: 10, top: 10, bottom: 22 };

/** The accessible name: always English and always containing "context", whatever the UI language. */
export function curveLabel(i: Pick<CurveInput, 'calls' | 'window' | 'threshold' | 'label'>): string {
  const n = i.calls.length;
  const peak = i.calls.reduce((a, c) => Math.max(a, c.context), 0);
  const last = i.calls.at(-1)?.context ?? 0;
  const gens = new Set(i.calls.map((c) => c.session)).size;
  return (
    `context curve of ${i.label}: ${n} model call${n === 1 ? '' : 's'}` +
    (n ? `, last ${tokens(last)}, peak ${tokens(peak)} tokens` : '') +
    (gens > 1 ? `, ${gens} sessions (handoff generations)` : '') +
    `; handoff threshold ${tokens(i.threshold)}, window ${tokens(i.window)}`
  );
}

function ticks(max: number): number[] {
  const nice = [1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_000_000, 5_000_000];
  const out = nice.filter((t) => t <= max);
  // keep at most four, spread out (the largest ones matter most)
  return out.length <= 4 ? out : [out[0]!, out[Math.floor(out.length / 3)]!, out[Math.floor((2 * out.length) / 3)]!, out.at(-1)!];
}

export function curveSvg(i: CurveInput): string {
  const w = i.width ?? 560;
  const h = i.height ?? 160;
  const iw = w - PAD.left - PAD.right;
  const ih = h - PAD.top - PAD.bottom;
  const peak = i.calls.reduce((a, c) => Math.max(a, c.context), 0);
  const top = Math.max(i.window, peak, 1) * 1.04;
  const y = (v: number) => +(PAD.top + ih - Math.sqrt(Math.max(0, v) / top) * ih).toFixed(1);
  const n = i.calls.length;
  const x = (k: number) => +(PAD.left + (n <= 1 ? iw / 2 : (k / (n - 1)) * iw)).toFixed(1);
  const parts: string[] = [];
  const label = curveLabel(i);
  parts.push(`<svg class="curve" role="img" aria-label="${esc(label)}" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" xmlns="http://www.w3.org/2000/svg">`);
  parts.push(`<title>${esc(label)}</title>`);
  parts.push(`<rect class="plot" x="${PAD.left}" y="${PAD.top}" width="${iw}" height="${ih}" fill="none" stroke="#ccc"/>`);
  for (const t of ticks(top)) {
    if (Math.abs(t - i.window) / i.window < 0.08 || Math.abs(t - i.threshold) / Math.max(1, i.threshold) < 0.08) continue;
    parts.push(`<text class="tick" x="${PAD.left - 4}" y="${y(t) + 3}" text-anchor="end" font-size="9" fill="#888">${tokens(t)}</text>`);
    parts.push(`<line class="grid" x1="${PAD.left}" x2="${PAD.left + iw}" y1="${y(t)}" y2="${y(t)}" stroke="#eee"/>`);
  }
  const hline = (cls: string, v: number, color: string, name: string) => {
    parts.push(
      `<line class="${cls}" data-tokens="${v}" x1="${PAD.left}" x2="${PAD.left + iw}" y1="${y(v)}" y2="${y(v)}" stroke="${color}" stroke-width="1.5"${cls === 'threshold' ? ' stroke-dasharray="6 3"' : ''}><title>${name} ${tokens(v)}</title></line>`,
    );
    parts.push(`<text class="${cls}-label" x="${PAD.left - 4}" y="${y(v) + 3}" text-anchor="end" font-size="9" fill="${color}">${tokens(v)}</text>`);
  };
  hline('window', i.window, '#b00020', 'window');
  hline('threshold', i.threshold, '#c77700', 'handoff threshold');
  // generation boundaries: where the session id changes
  for (let k = 1; k < n; k++) {
    if (i.calls[k]!.session !== i.calls[k - 1]!.session) {
      const gx = +((x(k) + x(k - 1)) / 2).toFixed(1);
      parts.push(
        `<line class="handoff" x1="${gx}" x2="${gx}" y1="${PAD.top}" y2="${PAD.top + ih}" stroke="#6a1b9a" stroke-dasharray="3 3"><title>handoff: a new session took over</title></line>`,
      );
    }
  }
  if (n > 1) {
    const pts = i.calls.map((c, k) => `${x(k)},${y(c.context)}`).join(' ');
    parts.push(`<polyline class="line" points="${pts}" fill="none" stroke="#1565c0" stroke-width="1.5"/>`);
  }
  // one <circle> per call, numbers in attributes; per-call titles and generation ids only while they
  // stay small (a 100k-entry session has ~30k calls: the page must stay a few MB, not tens)
  const r = n > 400 ? 1.2 : n > 100 ? 2 : 3;
  const titled = n <= 500;
  const gens = new Set(i.calls.map((c) => c.session)).size > 1;
  parts.push(`<g class="calls" fill="#1565c0">`);
  i.calls.forEach((c, k) => {
    const attrs = `cx="${x(k)}" cy="${y(c.context)}" r="${r}" data-context="${c.context}"${gens ? ` data-session="${esc(c.session)}"` : ''}`;
    parts.push(
      titled ? `<circle class="call" ${attrs}><title>call ${k + 1}: context ${c.context.toLocaleString('en')} tokens</title></circle>` : `<circle ${attrs}/>`,
    );
  });
  parts.push('</g>');
  parts.push(`<text class="axis" x="${PAD.left}" y="${h - 6}" font-size="9" fill="#888">model calls → (${n})</text>`);
  if (n === 0)
    parts.push(
      `<text class="empty" x="${PAD.left + iw / 2}" y="${PAD.top + ih / 2}" text-anchor="middle" font-size="11" fill="#888">no model call recorded</text>`,
    );
  parts.push('</svg>');
  return parts.join('');
}
