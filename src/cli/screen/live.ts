/**
 * The live line's model, pure: what it knows (step, context, cost, when the run started, when
 * anything last happened, whether a question waits) and how it reads at a given moment and width.
 * The writer redraws it every second, so a worker silent for minutes still shows the clock moving.
 */
import { clockDuration, money, tokens } from '../term.js';
import type { ScreenTexts } from './texts.js';
import { width } from './wrap.js';

export const SPINNER = ['|', '/', '-', '\\'] as const;

export interface LiveState {
  step: string;
  context: number;
  /** cost of finished runs (the Runtime's total) */
  cost: number;
  /** cost reported by runs still going (their SDK result events), not yet in `cost` */
  pendingCost: number;
  startedAt: number;
  lastEventAt: number;
  waiting: boolean;
  /** the run's budget (`--budget`), shown as `$spent / $cap` */
  cap?: number | undefined;
  /** the run's deadline (epoch ms), shown as the time left */
  deadlineAt?: number | undefined;
}

export function newLiveState(now = Date.now()): LiveState {
  return { step: '', context: 0, cost: 0, pendingCost: 0, startedAt: now, lastEventAt: now, waiting: false };
}

/** `| 干活 · ctx 12.3K · $0.0123 · 1:05 · quiet 0:40` — cut from the right to fit `cols - 1`. */
export function liveLine(s: LiveState, now: number, cols: number, t: ScreenTexts): string {
  const frame = SPINNER[Math.floor(now / 250) % SPINNER.length]!;
  const parts = [s.step ? t.step(s.step) : '…'];
  if (s.context > 0) parts.push(`${t.ctx} ${tokens(s.context)}`);
  parts.push(`$${money(s.cost + s.pendingCost)}${s.cap !== undefined ? ` / $${money(s.cap)}` : ''}`);
  parts.push(clockDuration((now - s.startedAt) / 1000));
  if (s.deadlineAt !== undefined) parts.push(t.timeLeft(clockDuration(Math.max(0, s.deadlineAt - now) / 1000)));
  if (s.waiting) parts.push(t.waiting);
  else if (now - s.lastEventAt >= 10_000) parts.push(t.quiet(clockDuration((now - s.lastEventAt) / 1000)));
  return cutTo(`${frame} ${parts.join(' · ')}`, cols - 1);
}

/** Cut plain text to `cols` display columns (the footer must never wrap, or redraws would drift). */
export function cutTo(text: string, cols: number): string {
  if (width(text) <= cols) return text;
  let out = '';
  for (const ch of text) {
    if (width(out + ch) > cols - 1) break;
    out += ch;
  }
  return `${out}~`;
}
