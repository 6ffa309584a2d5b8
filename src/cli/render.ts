/**
 * The terminal renderer: events in, lines for people out. Text from models and files is sanitized
 * of every escape at the door; then it is wrapped by display width with a hanging indent under the
 * speaker's mark and coloured by speaker (one palette), one block per write. Nothing is cut except
 * the deliberately compact one-liners (thinking, worker activity) — `-v` shows those whole, `-q`
 * hides them. flower's own tools read as words, never as `mcp__human__…`.
 */
import type { Lang } from '../config/index.js';
import type { FieldIssue } from '../human/index.js';
import type { FlowerEvent, StepResult } from '../runtime/index.js';
import type { Writable } from './io.js';
import { messages, stepLabel, type Messages } from './messages.js';
import { Palette, type Role } from './screen/palette.js';
import { commandLines, submissionLabel, toolLine } from './screen/names.js';
import { clipWords, refusalLines } from './screen/refusal.js';
import { screenTexts, type Outcome, type ScreenTexts } from './screen/texts.js';
import { Screen } from './screen/tty.js';
import { wrapBlock } from './screen/wrap.js';
import { banner, clockDuration, fit, money, sanitize, screenWidth, tokens, width } from './term.js';

export type Level = 'quiet' | 'normal' | 'verbose';

export interface RendererOptions {
  verbose?: boolean;
  quiet?: boolean;
  /** colour on (decided by the caller from the stream and NO_COLOR / FORCE_COLOR); default off */
  colour?: boolean;
  /** where lines go (default: plain lines on `out`) */
  screen?: Screen;
  /** the costs come from a scripted model (`flower demo`): every amount says so */
  simulated?: boolean;
  /** the width a pipe was given (`COLUMNS`, src/cli/term.ts `wrapWidth`): lines wrap at it as on a terminal */
  columns?: number;
}

export interface VerdictInfo {
  outcome: Outcome;
  passed: number;
  total: number;
}

const clean = (s: string): string => sanitize(String(s ?? ''), { keepColour: false });

// the speaker's mark at the start of a message line: its continuation lines hang under the text
const MARK = /^(\s*(?:[x!+#.~?>*=|-]|<-|\d+\.)\s+)/;
const ROLE_OF: Record<string, Role> = {
  x: 'error',
  '!': 'warn',
  '+': 'answer',
  '#': 'note',
  '.': 'hint',
  '~': 'thinking',
  '?': 'question',
  '>': 'dispatch',
  '*': 'tool',
  '<-': 'banner',
  '=': 'verdict-ok',
};

const verdictKey = (p: Record<string, unknown>): string => `${String(p.outcome)} ${Number(p.passed) || 0}/${Number(p.total) || 0}`;

export class Renderer {
  readonly t: Messages;
  readonly s: ScreenTexts;
  readonly level: Level;
  readonly screen: Screen;
  readonly palette: Palette;
  private readonly started = Date.now();
  /** tool_use id → tool name, so a rejected submission can be named */
  private readonly calls = new Map<string, string>();
  /** the wake tag is on screen already (it is shown once per run) */
  private tagShown = false;
  /** the verdict the screen showed last (outcome and pass count) */
  private lastVerdict = '';
  /** rejections shown from the channel's typed event, whose tool results say nothing more */
  private refusals = 0;
  /** questions already on screen (id and time asked) */
  private readonly shownAsks = new Set<string>();

  private readonly lang: Lang;

  constructor(out: Writable, lang: Lang, o: RendererOptions = {}) {
    this.lang = lang;
    this.t = messages(lang);
    this.s = screenTexts(lang);
    this.level = o.verbose ? 'verbose' : o.quiet ? 'quiet' : 'normal';
    this.screen = o.screen ?? new Screen({ out, live: false });
    this.palette = new Palette(o.colour === true);
    this.simulated = o.simulated === true;
    this.columns = o.columns ?? 0;
  }

  private readonly columns: number;

  private readonly simulated: boolean;

  /** An amount as a line shows it after its `$`: `0.1776`, or `0.1776 (simulated)` in the demo. */
  cost(usd: number): string {
    return `${money(usd)}${this.simulated ? this.t.simulated : ''}`;
  }

  get cols(): number {
    return screenWidth(this.screen.live || !this.columns ? this.screen.cols : this.columns);
  }

  /** Where lines wrap: the screen's width on a terminal or in a pipe told its width (COLUMNS); else 0 (whole lines). */
  get wrapAt(): number {
    return this.screen.live || this.columns ? this.cols : 0;
  }

  /** Message lines (may come from files or models): sanitized, wrapped under their mark, coloured by it. */
  line(...lines: string[]): void {
    const out: string[] = [];
    for (const l of lines) {
      const text = clean(l);
      if (text.trim() === '') {
        out.push('');
        continue;
      }
      const m = MARK.exec(text);
      const mark = m ? m[1]!.trim() : '';
      out.push(...this.wrap(ROLE_OF[mark] ?? 'prose', text.slice(m ? m[1]!.length : 0), m ? m[1]! : ''));
    }
    this.screen.print(out);
  }

  /** Lines whose words (paths, commands) must stay whole: wrapped only between words, never inside one. */
  whole(role: Role, text: string): void {
    const lines = wrapBlock(clean(text), this.wrapAt, '', '  ', { hard: false });
    this.screen.print(lines.map((l) => this.palette.paint(role, l)));
  }

  private wrap(role: Role, text: string, first: string, rest?: string): string[] {
    return wrapBlock(text, this.wrapAt, first, rest).map((l) => this.palette.paint(role, l));
  }

  /** One line, cut to the screen (compact activity: thinking, worker tool calls). */
  private compact(role: Role, text: string): void {
    const t = clean(text);
    const lead = /^\s*/.exec(t)![0];
    const one = lead + t.slice(lead.length).replace(/\s+/g, ' ').trim();
    if (one.trim()) this.screen.print([this.palette.paint(role, this.wrapAt ? fit(one, this.wrapAt) : one)]);
  }

  private say(role: Role, first: string, text: string, rest?: string): void {
    this.screen.print(this.wrap(role, clean(text), first, rest));
  }

  event = (e: FlowerEvent): void => {
    const p = e.payload;
    switch (e.kind) {
      case 'step':
        this.stepBanner(e);
        return;
      case 'text':
        if (!e.subagent) this.say('prose', '  ', e.text);
        else if (this.level === 'verbose') this.say('worker', '  | ', e.text);
        return;
      case 'tool_call':
        this.toolCall(e);
        return;
      case 'tool_result':
        this.toolResult(e);
        return;
      case 'thinking':
        if (this.level === 'quiet' || !e.text.trim()) return;
        if (this.level === 'verbose') this.say('thinking', '~ ', e.text);
        else this.compact('thinking', `~ ${e.text}`);
        return;
      case 'error':
        this.say('error', 'x ', e.text);
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
        else if (p.kind === 'verdict') this.verdict(p);
        else if (p.kind === 'attempt' && isResult(p.result)) this.attempt(p.result);
        else if (p.kind === 'rejected') this.refusal(p);
        return;
      case 'handoff':
        this.handoff(p);
        return;
      default:
        return;
    }
  };

  /** A step's banner, with the wake tag on the first step that resumes. */
  private stepBanner(e: FlowerEvent): void {
    const p = e.payload;
    // the wake tag once per run: on the first step that resumes
    const tag = p.resumed === true && !this.tagShown ? this.t.resumedTag(Number(p.woke) || 0) : '';
    if (tag) this.tagShown = true;
    // the seed's step names stay on disk; on screen they read in the person's language
    const name = clean(stepLabel(e.text, this.lang));
    const [i, n] = [Number(p.index), Number(p.total)];
    // a narrow screen gets the wake tag on a line of its own rather than cut
    const lines =
      !this.wrapAt || width(`== ${name} ==  ${i}/${n}  ${tag}`) <= this.cols
        ? [banner(name, i, n, this.cols, tag)]
        : [banner(name, i, n, this.cols), `   ${tag}`];
    this.screen.print(['', ...lines.map((l) => this.palette.paint('banner', l))]);
  }

  /** A tool call: remembered (so its result can be named), then whole with -v, one cut line without, none with -q. */
  private toolCall(e: FlowerEvent): void {
    const p = e.payload;
    const v = this.level === 'verbose';
    if (typeof p.id === 'string' && e.tool) this.calls.set(p.id, e.tool);
    if (this.level === 'quiet') return;
    const tl = toolLine(e.tool ?? '', p.input, clean(e.text), this.s, { verbose: v });
    if (!tl) return;
    const lead = `${e.subagent ? '  | ' : ''}${tl.mark} `;
    const command = e.tool === 'Bash' && !e.subagent ? bashCommand(p.input) : '';
    // the main thread's commands (a judge running the work) whole, wrapped: what was checked, exactly
    if (command && !v) this.screen.print(commandLines(`${lead}Bash `, command, this.wrapAt, this.s).map((l) => this.palette.paint(tl.role, l)));
    else if (v) this.say(e.subagent ? 'worker' : tl.role, lead, tl.text);
    else this.compact(e.subagent ? 'worker' : tl.role, `${lead}${tl.text}`);
  }

  /** A tool result: a rejected submission always (it is why a step fails), any other only with -v. */
  private toolResult(e: FlowerEvent): void {
    const p = e.payload;
    const tool = typeof p.tool_use_id === 'string' ? this.calls.get(p.tool_use_id) : undefined;
    const label = tool ? submissionLabel(tool, this.s) : null;
    if (label && p.is_error === true) {
      // the channel's typed line said what was wrong; the model's explanation stays in the log
      if (this.refusals > 0) this.refusals--;
      else this.say('error', 'x ', this.s.rejected(label, clean(e.text).split('\n')[0] ?? ''));
      return;
    }
    if (this.level !== 'verbose') return;
    this.say(
      e.subagent ? 'worker' : p.is_error === true ? 'error' : 'hint',
      `${e.subagent ? '  | ' : ''}  ${p.is_error === true ? 'x' : '.'} `,
      e.text.split('\n')[0] ?? '',
    );
  }

  /** A submission the schema did not accept (the channel's typed event): one line naming each field. */
  private refusal(p: Record<string, unknown>): void {
    const kind = String(p.submission ?? '');
    if (!(kind in this.s.docShort) || !Array.isArray(p.issues)) return;
    const issues = (p.issues as FieldIssue[]).map((i) => ({ ...i, field: clean(String(i.field)), ...(i.allowed ? { allowed: i.allowed.map(clean) } : {}) }));
    this.refusals++;
    this.screen.print(refusalLines(kind as 'brief', issues, this.s, this.wrapAt).map((l) => this.palette.paint('warn', l)));
  }

  /** The handoff's phases: near the window, writing, and done (with the first line of each section). */
  private handoff(p: Record<string, unknown>): void {
    const ctx = tokens(Number(p.context) || 0);
    if (p.phase === 'near') this.line(this.t.handoffNear(ctx, tokens(Number(p.at) || 0)));
    else if (p.phase === 'writing') this.line(this.t.handoffWriting);
    else if (p.phase === 'done') {
      const sec = (p.sections ?? {}) as Record<string, unknown>;
      for (const k of ['doing', 'decided', 'deadends', 'next']) {
        const val = String(sec[k] ?? '').trim();
        if (val) this.say('note', `#   ${k}: `, val.split('\n')[0] ?? '');
      }
      this.line(this.t.handoffDone(String(p.path ?? ''), p.degraded === true));
    }
  }

  /**
   * A question, its options and how it ended. A question that ends at once (`--timeout 0`, a pipe, the
   * quota spent) never had its `asked` event: it is shown whole before how it ended, all the same.
   */
  private ask(e: FlowerEvent): void {
    const p = e.payload;
    const state = String(p.state ?? '');
    const key = `${String(p.id ?? '')} ${String(p.asked_at ?? '')}`;
    if (state === 'asked') {
      this.shownAsks.add(key);
      this.screen.print([...this.question(e), ...this.wrap('hint', this.t.answerHint, '  ')]);
      return;
    }
    if (!this.shownAsks.has(key) && state !== 'invalid' && e.text.trim()) {
      this.shownAsks.add(key);
      this.screen.print(this.question(e));
    }
    if (state === 'answered') this.line(this.t.answered(String(p.answer ?? '')));
    else if (state === 'timeout') this.line(this.t.noAnswer);
    else if (state === 'over_budget') this.line(this.t.overBudget);
    else if (state === 'declined') this.line(this.t.skipped);
  }

  /** The question's lines: its id and text (with the questions left), then its numbered options. */
  private question(e: FlowerEvent): string[] {
    const p = e.payload;
    const options = Array.isArray(p.options) ? (p.options as unknown[]).map((o) => clean(String(o))) : [];
    const rem = typeof p.remaining === 'number' && p.remaining >= 0 ? ` ${this.t.remaining(p.remaining)}` : '';
    const head = `${this.t.question(clean(String(p.id ?? '')))} `;
    const lines = this.wrap('question', `${clean(e.text)}${rem}`, head, '  ');
    options.forEach((o, i) => {
      const n = `  ${i + 1}. `;
      lines.push(
        ...wrapBlock(o, this.wrapAt, n, ' '.repeat(n.length)).map((l, j) =>
          j === 0 ? this.palette.paint('question', l.slice(0, n.length)) + l.slice(n.length) : l,
        ),
      );
    });
    return lines;
  }

  /**
   * The run's last verdict at its end (src/cli/ending.ts): after a blank line, unless it is the verdict
   * the screen showed last — one judgement, one line.
   */
  closingVerdict(p: Record<string, unknown>): void {
    if (this.lastVerdict === verdictKey(p)) return;
    this.line('');
    this.verdict(p);
  }

  /** The judge's line: outcome, pass count, and the judge's own cost. */
  verdict(p: Record<string, unknown>): void {
    this.lastVerdict = verdictKey(p);
    const outcome = (['achieved', 'not_yet', 'unreachable'].includes(String(p.outcome)) ? p.outcome : '') as Outcome;
    const head = this.s.verdict(this.s.outcome[outcome], Number(p.passed) || 0, Number(p.total) || 0);
    const cost = `${this.t.turns(Number(p.num_turns) || 0)} · $${this.cost(Number(p.cost_usd) || 0)} · ${clockDuration(Number(p.duration_s) || 0)}`;
    this.say(outcome === 'achieved' ? 'verdict-ok' : 'verdict-no', '= ', `${head} · ${cost}`);
    const reason = clean(String(p.reason ?? '')).trim();
    if (reason && outcome !== 'achieved' && this.level !== 'quiet') this.say('hint', '  ', reason.split('\n').slice(0, 3).join(' '));
  }

  /** A step's (or one attempt's) own line: done or failed — never "done" for a failure — with its cost. */
  result(r: StepResult): void {
    const head = r.ok ? this.t.done : this.t.failed;
    const secs = r.ended_at ? (Date.parse(r.ended_at) - Date.parse(r.started_at)) / 1000 : 0;
    const label = /#/.test(r.step) ? ` ${this.s.step(r.step)}` : '';
    const line = `${head.slice(2)}${label} · ${this.t.turns(r.num_turns)} · $${this.cost(r.cost_usd)} · ${clockDuration(secs)}`;
    this.say(r.ok ? 'ok' : 'error', `${head.slice(0, 2)}`, r.ok ? line : this.withWhy(line, r.error ?? this.s.stepRejected));
  }

  /** An attempt that will be tried again (a rejected round): its cost, and why — not a final failure. */
  attempt(r: StepResult): void {
    const secs = r.ended_at ? (Date.parse(r.ended_at) - Date.parse(r.started_at)) / 1000 : 0;
    const line = `${this.s.notAccepted(this.s.step(r.step))} · ${this.t.turns(r.num_turns)} · $${this.cost(r.cost_usd)} · ${clockDuration(secs)}`;
    this.say('warn', '~ ', r.error ? this.withWhy(line, r.error) : line);
  }

  /**
   * A line and why; where lines have a width, the reason within two of them (the rest is in the manifest
   * and `flower log`): a short reason that says what to do stays whole, a wall of API text does not.
   */
  private withWhy(line: string, why: string): string {
    return `${line} · ${this.wrapAt ? clipWords(why, Math.max(8, 2 * this.wrapAt - 4 - width(`${line} · `))) : why}`;
  }

  elapsed(): string {
    return clockDuration((Date.now() - this.started) / 1000);
  }

  close(): void {
    this.screen.close();
  }
}

/** A Bash call's command, sanitized; '' when the input has none. */
function bashCommand(input: unknown): string {
  const c = typeof input === 'object' && input !== null ? (input as Record<string, unknown>).command : undefined;
  return typeof c === 'string' ? clean(c) : '';
}

function isResult(v: unknown): v is StepResult {
  return typeof v === 'object' && v !== null && typeof (v as StepResult).step === 'string' && typeof (v as StepResult).ok === 'boolean';
}
