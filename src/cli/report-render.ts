/**
 * `flower report`'s text, a pure function of the report (src/cli/report-analysis.ts): English or
 * Chinese, wrapped at `cols` columns with a hanging indent (0: not wrapped, for pipes).
 */
import type { RunReport, StepReport, TokenSums } from './report-analysis.js';
import { wrapBlock } from './screen/wrap.js';
import { one } from './status.js';
import { clockDuration, money, tokens } from './term.js';

const BARS = '▁▂▃▄▅▆▇█';

/** At most `n` points of `xs`, evenly spaced, always keeping the peak (what the curve is read for). */
export function sample(xs: readonly number[], n: number): number[] {
  if (xs.length <= n) return [...xs];
  const peakAt = xs.indexOf(Math.max(...xs));
  const idx = new Set<number>();
  for (let i = 0; i < n; i++) idx.add(Math.round((i * (xs.length - 1)) / (n - 1)));
  if (!idx.has(peakAt)) {
    // the sampled index nearest the peak gives way to it
    const near = [...idx].reduce((a, b) => (Math.abs(b - peakAt) < Math.abs(a - peakAt) ? b : a));
    idx.delete(near);
    idx.add(peakAt);
  }
  return [...idx].sort((a, b) => a - b).map((i) => xs[i]!);
}

/**
 * The context curve as a sparkline of at most `max` bars from its lowest point (▁) to its peak (█) —
 * a main thread's context only grows by a few percent a call, so bars from zero would all be full —
 * with a `|` where a handoff passed the work to a successor session. A flat curve is a row of ▄.
 * @example sparkline([10, 20, 40, 80, 20], [4]) === "▁▂▄█|▂"
 */
export function sparkline(curve: readonly number[], handoffs: readonly number[], max = 24): string {
  if (curve.length === 0) return '';
  const peak = Math.max(...curve);
  const low = Math.min(...curve);
  const bar = (v: number): string => (peak === low ? '▄' : BARS[Math.round(((v - low) / (peak - low)) * (BARS.length - 1))]!);
  const cuts = [0, ...handoffs, curve.length];
  const parts: string[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const seg = curve.slice(cuts[i], cuts[i + 1]);
    const room = Math.max(1, Math.round((max * seg.length) / curve.length));
    parts.push(sample(seg, room).map(bar).join(''));
  }
  return parts.join('|');
}

/** `83.3%`: one decimal, as the acceptance scripts read it. */
export const percent = (rate: number): string => `${(rate * 100).toFixed(1)}%`;

const counts = (c: Readonly<Record<string, number>>): string =>
  Object.entries(c)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${one(k)} ${n}`)
    .join(', ');

const inputOf = (t: TokenSums): number => t.input + t.cacheCreation + t.cacheRead;

interface Line {
  text: string;
  /** the hanging indent: the first line's lead, the rest line up under its text */
  first: string;
  /** the lead of the other lines (default: spaces as wide as `first`) */
  rest?: string;
}

function stepLines(s: StepReport, zh: boolean): Line[] {
  const sessions = s.sessions.map((x) => one(x).slice(0, 8)).join(' → ');
  const head = `${one(s.step)}  $${money(s.cost_usd)} · ${clockDuration(s.duration_s)} · ${zh ? '会话' : s.sessions.length === 1 ? 'session' : 'sessions'} ${sessions || '—'}`;
  const out: Line[] = [{ first: `  ${s.ok ? '+' : 'x'} `, text: head }];
  if (s.missing.length)
    out.push({ first: '      ', text: `${zh ? '库里没有这些会话的记录' : 'no transcript in the store for'}: ${s.missing.map(one).join(', ')}` });
  if (s.curve.length) {
    const ho = s.handoffs.length;
    const tail = zh
      ? `从 ${tokens(s.curve[0]!)} 起 · 峰值 ${tokens(s.peak)} · 最后 ${tokens(s.last)} · ${s.curve.length} 次调用${ho ? ` · 交接 ${ho} 次` : ''}`
      : `first ${tokens(s.curve[0]!)} · peak ${tokens(s.peak)} · last ${tokens(s.last)} · ${s.curve.length} call${s.curve.length === 1 ? '' : 's'}${ho ? ` · ${ho} handoff${ho === 1 ? '' : 's'}` : ''}`;
    out.push({ first: '      ', text: `${zh ? '上下文' : 'context'} ${sparkline(s.curve, s.handoffs)}  ${tail}` });
  }
  return out;
}

function figureLines(r: RunReport, zh: boolean): Line[] {
  const out: Line[] = [];
  const t = r.tokens;
  out.push({
    first: '  ',
    text: zh
      ? `缓存命中 ${percent(r.cache_hit_rate)}(输入 ${tokens(inputOf(t))} 个 token 中读缓存 ${tokens(t.cacheRead)},${t.calls} 次模型调用)`
      : `cache hits ${percent(r.cache_hit_rate)} (cache read ${tokens(t.cacheRead)} of ${tokens(inputOf(t))} input tokens, ${t.calls} model call${t.calls === 1 ? '' : 's'})`,
  });
  const main = counts(r.tools.main);
  const subs = counts(r.tools.subagents);
  out.push({ first: '  ', text: `${zh ? '工具(主线程)' : 'tools (main thread)'}: ${main || (zh ? '无' : 'none')}` });
  out.push({ first: '  ', text: `${zh ? '工具(子代理)' : 'tools (subagents)'}: ${subs || (zh ? '无' : 'none')}` });
  out.push({ first: '  ', text: `${zh ? '被拦下的协调者调用' : 'denied coordinator calls'}: ${r.denied.length}` });
  for (const d of r.denied) out.push({ first: '    x ', text: `${one(d.step)} · ${one(d.tool)}: ${one(d.reason)}` });
  out.push({ first: '  ', text: `${zh ? '协调者自己跑的 Bash 命令' : "the coordinator's Bash commands"}: ${r.bash.length}` });
  for (const b of r.bash) out.push({ first: '    $ ', text: `${one(b.command)}${b.denied ? (zh ? '  (被拦下)' : '  (denied)') : ''}` });
  const s = r.spills;
  out.push({
    first: '  ',
    text: zh
      ? `转存 ${s.count} 个大输出${s.count ? `,约 ${tokens(Math.round(s.saved_chars / 4))} 个 token(${tokens(s.saved_chars)} 字符)没进上下文` : ''}`
      : `spilled ${s.count} big output${s.count === 1 ? '' : 's'} to files${s.count ? `, ≈${tokens(Math.round(s.saved_chars / 4))} tokens (${tokens(s.saved_chars)} chars) kept out of the context` : ''}`,
  });
  return out;
}

/** The report as lines of text (no trailing newline). */
export function renderReport(r: RunReport, o: { zh: boolean; cols: number }): string {
  const { zh } = o;
  const when = one(r.started_at).replace('T', ' ').slice(0, 19);
  const state = r.ended_at === null ? (zh ? '没结束' : 'not finished') : r.ok ? 'ok' : zh ? '有失败' : 'had failures';
  const lines: Line[] = [
    { first: '', rest: '  ', text: `flower report — ${zh ? '运行' : 'run'} ${one(r.run)} · ${when} · ${state} · $${money(r.cost_usd)}` },
    { first: '  ', text: `${zh ? '步骤' : 'steps'}: ${r.steps.length}` },
    ...r.steps.flatMap((s) => stepLines(s, zh)),
    ...figureLines(r, zh),
  ];
  return lines.flatMap((l) => wrapBlock(l.text, o.cols, l.first, l.rest)).join('\n');
}
