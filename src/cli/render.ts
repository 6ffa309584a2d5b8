/**
 * The terminal renderer: events in, sanitized width-limited lines out, one write per block.
 * Subagent activity and tool results appear only with -v; the main thread's prose always does.
 */
import type { Lang } from '../config/index.js';
import type { FlowerEvent, StepResult } from '../runtime/index.js';
import type { Writable } from './io.js';
import { messages, type Messages } from './messages.js';
import { banner, clockDuration, fit, money, sanitize, screenWidth } from './term.js';

export class Renderer {
  readonly t: Messages;
  private readonly out: Writable;
  private readonly verbose: boolean;
  private readonly started = Date.now();

  constructor(out: Writable, lang: Lang, { verbose = false } = {}) {
    this.out = out;
    this.t = messages(lang);
    this.verbose = verbose;
  }

  get cols(): number {
    return screenWidth(this.out.columns);
  }

  line(...lines: string[]): void {
    const text = lines.map((l) => fit(sanitize(l), this.cols)).join('\n') + '\n';
    try { this.out.write(text); } catch { /* a closed terminal must not stop the run */ }
  }

  event = (e: FlowerEvent): void => {
    const p = e.payload;
    switch (e.kind) {
      case 'step': {
        const tag = p.resumed === true ? this.t.resumedTag(Number(p.woke) || 0) : '';
        this.line('', banner(e.text, Number(p.index), Number(p.total), this.cols, tag));
        return;
      }
      case 'text':
        if (e.subagent && !this.verbose) return;
        for (const l of e.text.split('\n')) if (l.trim()) this.line(`${e.subagent ? '  | ' : '  '}${l}`);
        return;
      case 'tool_call':
        if (e.subagent && !this.verbose) return;
        if (e.tool === 'Agent' || e.tool === 'Task') {
          const input = (p.input ?? {}) as Record<string, unknown>;
          this.line(`> ${String(input.subagent_type ?? 'agent')} ${String(input.description ?? '')}`);
          return;
        }
        this.line(`${e.subagent ? '  | ' : ''}* ${e.tool ?? ''} ${e.text}`);
        return;
      case 'tool_result':
        if (!this.verbose) return;
        this.line(`${e.subagent ? '  | ' : ''}  ${p.is_error === true ? 'x' : '.'} ${e.text.split('\n')[0] ?? ''}`);
        return;
      case 'thinking':
        if (this.verbose && e.text.trim()) this.line(`~ ${e.text.split('\n')[0] ?? ''}`);
        return;
      case 'error':
        this.line(`x ${e.text}`);
        return;
      case 'retry':
        this.line(this.t.retry(e.text));
        return;
      default:
        return;
    }
  };

  result(r: StepResult): void {
    const head = r.ok ? this.t.done : this.t.failed;
    const why = r.ok ? '' : ` · ${r.error ?? ''}`;
    const secs = r.ended_at ? (Date.parse(r.ended_at) - Date.parse(r.started_at)) / 1000 : 0;
    this.line(`${head} · ${this.t.turns(r.num_turns)} · $${money(r.cost_usd)} · ${clockDuration(secs)}${why}`);
  }

  elapsed(): string {
    return clockDuration((Date.now() - this.started) / 1000);
  }
}
