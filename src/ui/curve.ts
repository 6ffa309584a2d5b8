/**
 * The context curve: main-thread context per model call as an inline SVG — one <circle> per call (its
 * numbers in attributes and a <title>), a dashed vertical line where a session was retired and its
 * successor took over. Server-rendered and scriptless, so it prints, reads in a screen reader
 * (role="img" + aria-label) and needs no canvas.
 *
 * The y axis is linear and scaled to the curve's own peak, so a 14K context is a shape, not a flat
 * line at the bottom of a 1M window. The handoff threshold and the window are drawn as lines when they
 * are within reach of the peak (at most `REACH` × the peak); otherwise a note on the chart says where
 * they are. `size: 'small'` is the overview's sparkline: the same axis, no ticks, circles only while few.
 */
import type { ModelCall } from './transcript.js';
import { esc, tokens } from './sanitize.js';

export interface CurveInput {
  calls: readonly ModelCall[];
  window: number;
  threshold: number;
  /** who the curve is about, e.g. the step name (goes into the aria-label and the title) */
  label: string;
  /** 'full' (default): axis ticks, a title per call; 'small': a compact sparkline for the overview */
  size?: 'full' | 'small';
  width?: number;
  height?: number;
}

/** A limit line is drawn when it is at most this many times the peak; else it is named in a note. */
export const REACH = 1.6;
const PADS = { full: { left: 46, right: 10, top: 10, bottom: 22 }, small: { left: 2, right: 2, top: 4, bottom: 4 } };

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

/** The axis: its top, and which limit lines are within reach of the peak (drawn) or not (noted). */
export function curveScale(
  peak: number,
  window: number,
  threshold: number,
): { top: number; drawn: Array<'window' | 'threshold'>; noted: Array<'window' | 'threshold'> } {
  const limits = { window, threshold };
  const reach = Math.max(peak, 0) * REACH;
  const kinds = ['threshold', 'window'] as const;
  const drawn = peak > 0 ? kinds.filter((k) => limits[k] > 0 && limits[k] <= reach) : [];
  const noted = kinds.filter((k) => !drawn.includes(k));
  const top = Math.max(peak, ...drawn.map((k) => limits[k]), 1) * 1.08;
  return { top, drawn, noted };
}

/** Four to seven round ticks under `top`: 1, 2 or 5 × a power of ten apart, whichever is nearest a quarter of it. */
export function linearTicks(top: number): number[] {
  if (!(top > 0)) return [];
  const raw = top / 4;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).reduce((a, b) => (Math.abs(b - raw) < Math.abs(a - raw) ? b : a));
  const out: number[] = [];
  for (let t = step; t < top; t += step) out.push(t);
  return out;
}

/** At most `n` points: the largest call of each of `n` equal runs of calls (a sparkline of 30k calls stays small). */
export function thin(calls: readonly ModelCall[], n: number): readonly ModelCall[] {
  if (calls.length <= n) return calls;
  const out: ModelCall[] = [];
  for (let b = 0; b < n; b++) {
    const part = calls.slice(Math.floor((b * calls.length) / n), Math.floor(((b + 1) * calls.length) / n));
    out.push(part.reduce((a, c) => (c.context > a.context ? c : a)));
  }
  return out;
}

export function curveSvg(input: CurveInput): string {
  const small = input.size === 'small';
  // the label counts every call; a small curve draws at most 120 points
  const i = small ? { ...input, calls: thin(input.calls, 120) } : input;
  const PAD = PADS[small ? 'small' : 'full'];
  const w = i.width ?? (small ? 220 : 560);
  const h = i.height ?? (small ? 44 : 160);
  const iw = w - PAD.left - PAD.right;
  const ih = h - PAD.top - PAD.bottom;
  const peak = i.calls.reduce((a, c) => Math.max(a, c.context), 0);
  const { top, drawn, noted } = curveScale(peak, i.window, i.threshold);
  const y = (v: number) => +(PAD.top + ih - (Math.min(Math.max(0, v), top) / top) * ih).toFixed(1);
  const n = i.calls.length;
  const x = (k: number) => +(PAD.left + (n <= 1 ? iw / 2 : (k / (n - 1)) * iw)).toFixed(1);
  const parts: string[] = [];
  const label = curveLabel(input);
  parts.push(
    `<svg class="curve${small ? ' small' : ''}" role="img" aria-label="${esc(label)}" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" xmlns="http://www.w3.org/2000/svg">`,
  );
  parts.push(`<title>${esc(label)}</title>`);
  parts.push(`<rect class="plot" x="${PAD.left}" y="${PAD.top}" width="${iw}" height="${ih}" fill="none" stroke="#ccc"/>`);
  if (!small)
    for (const t of linearTicks(top)) {
      parts.push(`<text class="tick" x="${PAD.left - 4}" y="${y(t) + 3}" text-anchor="end" font-size="9" fill="#888">${tokens(t)}</text>`);
      parts.push(`<line class="grid" x1="${PAD.left}" x2="${PAD.left + iw}" y1="${y(t)}" y2="${y(t)}" stroke="#eee"/>`);
    }
  const limit = { window: { v: i.window, color: '#b00020', name: 'window' }, threshold: { v: i.threshold, color: '#c77700', name: 'handoff threshold' } };
  for (const k of drawn) {
    const { v, color, name } = limit[k];
    parts.push(
      `<line class="${k}" data-tokens="${v}" x1="${PAD.left}" x2="${PAD.left + iw}" y1="${y(v)}" y2="${y(v)}" stroke="${color}" stroke-width="1.5"${k === 'threshold' ? ' stroke-dasharray="6 3"' : ''}><title>${name} ${tokens(v)}</title></line>`,
    );
    if (!small)
      parts.push(
        `<text class="${k}-label" x="${PAD.left + iw - 2}" y="${y(v) - 2}" text-anchor="end" font-size="9" fill="${color}">${name} ${tokens(v)}</text>`,
      );
  }
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
  parts.push(callDots(i.calls, x, y, small));
  if (!small) {
    parts.push(`<text class="axis" x="${PAD.left}" y="${h - 6}" font-size="9" fill="#888">model calls → (${n})</text>`);
    if (noted.length)
      parts.push(
        `<text class="beyond" x="${PAD.left + iw}" y="${h - 6}" text-anchor="end" font-size="9" fill="#888">${noted.map((k) => `${limit[k].name} ${tokens(limit[k].v)}`).join(', ')} — above the chart (peak ${tokens(peak)})</text>`,
      );
  }
  if (n === 0 && !small)
    parts.push(
      `<text class="empty" x="${PAD.left + iw / 2}" y="${PAD.top + ih / 2}" text-anchor="middle" font-size="11" fill="#888">no model call recorded</text>`,
    );
  parts.push('</svg>');
  return parts.join('');
}

/**
 * One <circle> per call, numbers in attributes; per-call titles and generation ids only while they
 * stay small (a 100k-entry session has ~30k calls: the page must stay a few MB, not tens). A small
 * curve draws its circles only while there are few (its line carries the shape).
 */
function callDots(calls: readonly ModelCall[], x: (k: number) => number, y: (v: number) => number, small: boolean): string {
  const n = calls.length;
  if (small && n > 60) return '';
  const r = small ? 1.5 : n > 400 ? 1.2 : n > 100 ? 2 : 3;
  const titled = !small && n <= 500;
  const gens = new Set(calls.map((c) => c.session)).size > 1;
  const out = [`<g class="calls" fill="#1565c0">`];
  calls.forEach((c, k) => {
    const attrs = `cx="${x(k)}" cy="${y(c.context)}" r="${r}" data-context="${c.context}"${gens ? ` data-session="${esc(c.session)}"` : ''}`;
    out.push(
      titled ? `<circle class="call" ${attrs}><title>call ${k + 1}: context ${c.context.toLocaleString('en')} tokens</title></circle>` : `<circle ${attrs}/>`,
    );
  });
  out.push('</g>');
  return out.join('');
}
