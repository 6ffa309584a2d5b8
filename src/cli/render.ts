/**
 * The terminal renderer: events in, sanitized width-limited lines out, one write per block.
 * Subagent activity and tool results appear only with -v; the main thread's prose always does.
 */
import type { Lang } from '../config/index.js';
import type { FlowerEvent, StepResult } from '../runtime/index.js';
import type { Writable } from './io.js';
import { messages, stepLabel, type Messages } from './messages.js';
import { banner, clockDuration, fit, money, sanitize, screenWidth, tokens } from './term.js';

export class Renderer {
  readonly t: Messages;
  private readonly out: Writable;
  private readonly verbose: boolean;
  private readonly started = Date.now();
  private readonly lang: Lang;

  constructor(out: Writable, lang: Lang, { verbose = false } = {}) {
    this.out = out;
    this.lang = lang;
    this.t = messages(lang);
    this.verbose = verbose;
  }

  get cols(): number {
    return screenWidth(this.out.columns);
  }

  line(...lines: string[]): void {
    // cut to the screen only on a terminal (issue #7: 593-column lines crashed one); a pipe or a log
    // file gets whole lines, still sanitized
    const tty = this.out.isTTY === true;
    const text = lines.map((l) => (tty ? fit(sanitize(l), this.cols) : sanitize(l))).join('\n') + '\n';
    try { this.out.write(text); } catch { /* a closed terminal must not stop the run */ }
  }

  event = (e: FlowerEvent): void => {
    const p = e.payload;
    switch (e.kind) {
      case 'step': {
        const tag = p.resumed === true ? this.t.resumedTag(Number(p.woke) || 0) : '';
        this.line('', banner(stepLabel(e.text, this.lang), Number(p.index), Number(p.total), this.cols, tag));
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
        if (p.interrupted === true) this.line(this.t.interrupted(String(p.remark ?? '')));
        else if (p.offline === true || p.online === true) this.line(this.t.offline(e.text));
        else this.line(this.t.retry(e.text));
        return;
      case 'ask':
        this.ask(e);
        return;
      case 'mail':
        this.line(p.state === 'delivered' ? this.t.mailDelivered : this.t.mailQueued);
        return;
      case 'task':
        if (p.kind === 'unverifiable') this.line(this.t.unverifiable(e.text));
        return;
      case 'handoff': {
        const ctx = tokens(Number(p.context) || 0);
        if (p.phase === 'near') this.line(this.t.handoffNear(ctx, tokens(Number(p.at) || 0)));
        else if (p.phase === 'writing') this.line(this.t.handoffWriting);
        else if (p.phase === 'done') {
          const sec = (p.sections ?? {}) as Record<string, unknown>;
          for (const k of ['doing', 'decided', 'deadends', 'next']) {
            const v = String(sec[k] ?? '').trim();
            if (v) this.line(`#   ${k}: ${v.split('\n')[0] ?? ''}`);
          }
          this.line(this.t.handoffDone(String(p.path ?? ''), p.degraded === true));
        }
        return;
      }
      default:
        return;
    }
  };

  private ask(e: FlowerEvent): void {
    const p = e.payload;
    const state = String(p.state ?? '');
    if (state === 'asked') {
      const options = Array.isArray(p.options) ? (p.options as unknown[]).map(String) : [];
      const rem = typeof p.remaining === 'number' && p.remaining >= 0 ? ` ${this.t.remaining(p.remaining)}` : '';
      this.line(`${this.t.question(String(p.id ?? ''))} ${e.text}${rem}`, ...options.map((o, i) => `  ${i + 1}. ${o}`), `  ${this.t.answerHint}`);
    } else if (state === 'answered') this.line(this.t.answered(String(p.answer ?? '')));
    else if (state === 'timeout') this.line(this.t.noAnswer);
    else if (state === 'over_budget') this.line(this.t.overBudget);
    else if (state === 'declined') this.line(this.t.skipped);
  }

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

/**
 * `--json`: the same run as NDJSON on stdout — one event per line (`raw` SDK messages left out), the
 * human lines as `{"kind":"note"}`, each step's manifest row as `{"kind":"step_result"}` — for tools that
 * watch a run.
 */
export class JsonRenderer extends Renderer {
  private readonly sink: Writable;

  constructor(out: Writable, lang: Lang) {
    super(out, lang);
    this.sink = out;
  }

  private emit(o: Record<string, unknown>): void {
    try { this.sink.write(`${JSON.stringify({ t: new Date().toISOString(), ...o })}\n`); } catch { /* closed pipe */ }
  }

  override line(...lines: string[]): void {
    const text = lines.map((l) => sanitize(l, { keepColour: false })).join('\n').trim();
    if (text) this.emit({ kind: 'note', text });
  }

  override event = (e: FlowerEvent): void => {
    const { raw: _raw, ...rest } = e;
    this.emit({ ...rest });
  };

  override result(r: StepResult): void {
    this.emit({ kind: 'step_result', ...r });
  }
}
