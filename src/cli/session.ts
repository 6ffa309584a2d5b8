/**
 * The terminal session shared by `flower` (go) and `flower run`: the renderer and the screen, the
 * live line, the input line, where a typed line goes (answer by digit, mail, `? …` side questions),
 * two-stage Ctrl-C steering and the signal rescue. One module, so a custom workflow under
 * `flower run` gets exactly what the default flow gets.
 *
 * On a terminal stdin is read all the time (in raw mode, through a small line editor that keeps the
 * typed text visible across redraws): text typed during hours of work must not be eaten as the
 * answer to the next question. Without a terminal nothing is read and nothing is drawn.
 */
import readline from 'node:readline';
import type { Lang } from '../config/index.js';
import { routeLine, type HumanChannel, type InboxWatcher } from '../human/index.js';
import { oracle } from '../roles/index.js';
import { Runtime, type FlowerEvent } from '../runtime/index.js';
import { FileRunRecords, type RunLayout } from '../state/index.js';
import type { Quit } from './folder-lock.js';
import { watchInbox } from './inbox-watch.js';
import { EXIT, type CliIO } from './io.js';
import { security, type GlobalOptions } from './globals.js';
import { RunNotices } from './notify.js';
import { Renderer } from './render.js';
import { JsonRenderer } from './render-json.js';
import { LineEditor, type Key } from './screen/editor.js';
import { cutTo, liveLine, newLiveState, type LiveState } from './screen/live.js';
import { colourEnabled } from './screen/palette.js';
import { Screen } from './screen/tty.js';
import { width } from './screen/wrap.js';
import { LAST_WRITE_MS, rescueOnSignals } from './signals.js';
import { money, wrapWidth } from './term.js';

/** Redraw period of the live line: at least once a second while nothing else happens. */
export const TICK_MS = 500;

type TtyIn = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (on: boolean) => unknown; isRaw?: boolean };

export interface SessionOptions {
  io: CliIO;
  g: GlobalOptions & { quiet?: boolean };
  lang: Lang;
}

export class TerminalSession {
  readonly ui: Renderer;
  readonly tty: boolean;
  /** the person's notifications (`--notify`, `--notify-cmd`); null when none is set */
  readonly notices: RunNotices | null;
  private readonly io: CliIO;
  private readonly lang: Lang;
  /** --no-sandbox / --net, for the side-question Runtime too */
  private readonly walls: ReturnType<typeof security>;
  private readonly live: LiveState = newLiveState();
  private readonly editor = new LineEditor();
  private readonly recent: string[] = [];
  private readonly asides: Promise<void>[] = [];
  private readonly stops: Array<() => void> = [];
  private rt: Runtime | undefined;
  private channel: HumanChannel | undefined;
  private layout: RunLayout | undefined;
  private remarkOpen = false;
  private pendingAsk: { id: string; options: string[] } | null = null;
  /** a question answered from elsewhere (flower answer, the ui): the next line typed for it is too late */
  private lateAsk: string | null = null;
  /** the durable inbox: answers, remarks and stops from other processes */
  private watcher: InboxWatcher | undefined;
  private readonly stop = new AbortController();
  private lineHandler: ((line: string | null) => void) | null = null;
  private rawOn = false;
  private ticker: NodeJS.Timeout | undefined;
  private closed = false;
  /** what a second Ctrl-C releases, and the command it names to continue */
  private quit: Quit | undefined;

  constructor(o: SessionOptions) {
    this.walls = security(o.g);
    this.io = o.io;
    this.lang = o.lang;
    const out = o.io.stdout as CliIO['stdout'] & { fd?: number };
    const stdin = o.io.stdin as TtyIn | undefined;
    this.tty = stdin?.isTTY === true;
    if (o.g.json) {
      this.ui = new JsonRenderer(out, o.lang);
    } else {
      const outTty = out.isTTY === true;
      this.ui = new Renderer(out, o.lang, {
        ...{ verbose: o.g.verbose, quiet: o.g.quiet === true, simulated: o.g.simulated === true },
        colour: colourEnabled(o.io.env, outTty),
        screen: new Screen({ out, live: outTty }),
        columns: outTty ? 0 : wrapWidth(out, o.io.env),
      });
    }
    // read first: a bad --notify stops here, before any work (exit 2)
    this.notices = RunNotices.from(o.io, o.g, o.lang, { warn: (l) => this.ui.line(`! ${l}`), record: (e) => this.ui.event(e) });
  }

  /** The Runtime and channel this session steers; starts the live line and the input line. */
  attach(rt: Runtime, channel: HumanChannel | undefined, layout: RunLayout, quit?: Quit): void {
    this.rt = rt;
    this.quit = quit;
    this.channel = channel;
    this.layout = layout;
    this.live.startedAt = Date.now();
    this.live.cap = rt.limits.settings.budgetUsd;
    this.live.deadlineAt = rt.limits.settings.deadlineAt;
    this.notices?.attach(rt, channel);
    this.stops.push(rescueOnSignals(rt));
    if (channel) {
      this.stops.push(channel.listen((e) => this.onChannel(e)));
      this.watcher = watchInbox(rt.records.inbox, channel, this.ui, this.stop);
    }
    if (this.tty) this.installSigint();
    this.startInput((line) => this.route(line));
    if (this.ui.screen.ownsFooter) {
      this.ticker = setInterval(() => this.drawFooter(), TICK_MS);
      this.ticker.unref();
      this.drawFooter();
    }
  }

  /** Aborted when `flower stop --after-step` (or the ui) asked this run to stop after the step in progress. */
  get stopAfterStep(): AbortSignal {
    return this.stop.signal;
  }

  /** Every runtime / workflow event: the side-question memory, the live line, the screen. */
  onEvent = (e: FlowerEvent): void => {
    this.notices?.event(e);
    if (e.kind === 'system' && e.payload.lineage === 'corrupt') this.ui.line(this.ui.t.lineageCorrupt(String(e.payload.keptAt)));
    // a file flower did not write was set aside, not overwritten: the person must hear where it went
    else if (e.kind === 'system' && (e.payload.lineage === 'foreign' || e.payload.keptAside)) this.ui.line(`! ${e.text}`);
    if (e.kind !== 'thinking' && e.kind !== 'prompt' && e.text.trim()) {
      this.recent.push(`[${e.kind}${e.tool ? ` ${e.tool}` : ''}${e.subagent ? ' (worker)' : ''}] ${e.text.replace(/\s+/g, ' ').slice(0, 200)}`);
      if (this.recent.length > 60) this.recent.shift();
    }
    this.track(e);
    // a channel the session listens to already showed its ask/mail events
    if ((e.kind === 'ask' || e.kind === 'mail') && this.channel) return;
    this.ui.event(e);
    this.drawFooter();
  };

  private onChannel(e: FlowerEvent): void {
    this.notices?.event(e);
    if (e.kind === 'ask') {
      const st = String(e.payload.state ?? '');
      const id = String(e.payload.id ?? '');
      if (st === 'asked') this.pendingAsk = { id, options: Array.isArray(e.payload.options) ? (e.payload.options as unknown[]).map(String) : [] };
      else if (this.pendingAsk?.id === id) this.pendingAsk = null;
      this.live.waiting = this.pendingAsk !== null;
      this.lateAsk = st === 'answered' && e.payload.via === 'inbox' ? id : st === 'asked' ? null : this.lateAsk;
    }
    this.ui.event(e);
    if (e.kind === 'ask' && e.payload.state === 'answered' && e.payload.via === 'inbox') this.ui.line(this.ui.t.answeredElsewhere(String(e.payload.id ?? '')));
    this.drawFooter();
  }

  private track(e: FlowerEvent): void {
    const s = this.live;
    s.lastEventAt = Date.now();
    if (e.kind === 'step') s.step = e.text;
    else if (e.step && e.kind !== 'result') s.step = e.step;
    if (!e.subagent && typeof e.context === 'number' && e.context > 0) s.context = e.context;
    this.syncCost();
    // the runtime's sum (runtime.ts, costed): adding the binary's totals counted a resumed session on every retry
    if (e.kind === 'result' && Number.isFinite(Number(e.payload.run_cost_usd))) s.pendingCost = Math.max(0, Number(e.payload.run_cost_usd) - s.cost);
  }

  /** A finished step moved the Runtime's total: it now holds what was pending. */
  private syncCost(): void {
    const total = this.rt?.totalCost();
    if (total === undefined || total === this.live.cost) return;
    this.live.cost = total;
    this.live.pendingCost = 0;
  }

  private drawFooter(): void {
    if (this.closed || !this.ui.screen.ownsFooter) return;
    // the real width, not the 40-column floor: a footer row that wraps would break every redraw
    const cols = Math.max(10, Math.min(this.ui.screen.cols, 110));
    this.syncCost();
    const status = this.rt ? this.ui.palette.paint('live', liveLine(this.live, Date.now(), cols, this.ui.s)) : null;
    let input: { line: string; col: number } | null = null;
    if (this.rawOn) {
      const prompt = this.promptText();
      const v = this.editor.view(prompt, cols);
      // the hint shows only while nothing is typed; the cursor stays after the prompt
      const hint = this.editor.text === '' ? this.hintText() : '';
      const room = cols - 1 - width(v.line);
      input = { line: hint && room > 6 ? `${v.line}${this.ui.palette.paint('hint', cutTo(hint, room))}` : v.line, col: v.col };
    }
    this.ui.screen.setFooter({ status, input });
  }

  private promptText(): string {
    if (this.remarkOpen) return '! ';
    return this.pendingAsk ? this.ui.s.promptAsk(this.pendingAsk.id) : this.ui.s.promptIdle;
  }

  private hintText(): string {
    if (this.remarkOpen) return '';
    return this.pendingAsk ? this.ui.s.inputAsk(this.pendingAsk.options.length) : this.ui.s.inputIdle;
  }

  /** Read one line before the run starts (the start prompt). null: stdin closed or Ctrl-C. */
  async prompt(question: string): Promise<string | null> {
    if (!this.io.stdin) return null;
    this.ui.line(question);
    return new Promise<string | null>((resolve) => {
      let done = false;
      const finish = (v: string | null) => {
        if (done) return;
        done = true;
        this.stopInput();
        resolve(v);
      };
      this.startInput(finish, () => finish(null));
      this.drawFooter();
    });
  }

  /** Typed lines go to `onLine`: through the line editor on a raw-mode terminal (the footer shows them), else plain lines. */
  private startInput(onLine: (line: string | null) => void, onCtrlC?: () => void): void {
    const stdin = this.io.stdin as TtyIn | undefined;
    if (!stdin || !this.tty || this.lineHandler) return;
    this.lineHandler = onLine;
    // the editor only where its line is drawn: raw mode turns the terminal's echo off, so without our
    // footer (stdout piped, another flower owns this terminal's footer) the terminal's own line mode stays
    if (typeof stdin.setRawMode === 'function' && this.ui.screen.ownsFooter && !this.io.env.FLOWER_LINE_MODE) {
      readline.emitKeypressEvents(stdin);
      stdin.setRawMode(true);
      this.rawOn = true;
      const restore = () => {
        try {
          stdin.setRawMode?.(false);
        } catch {
          /* gone */
        }
      };
      process.once('exit', restore);
      const onKey = (str: string | undefined, key: Key | undefined) => {
        const r = this.editor.key(str, key ?? {});
        if (r === 'interrupt') {
          (onCtrlC ?? (() => this.sigint()))();
          return;
        }
        if (r === 'eof') {
          this.lineHandler?.(null);
          return;
        }
        if (typeof r === 'object') {
          this.echo(r.submit);
          this.lineHandler?.(r.submit);
        }
        this.drawFooter();
      };
      stdin.on('keypress', onKey);
      stdin.resume();
      this.stopInputFns.push(() => {
        stdin.removeListener('keypress', onKey);
        restore();
        process.removeListener('exit', restore);
        stdin.pause();
        this.rawOn = false;
      });
      return;
    }
    const rl = readline.createInterface({ input: stdin, terminal: false });
    rl.on('line', (l) => this.lineHandler?.(l));
    rl.on('close', () => this.lineHandler?.(null));
    this.stopInputFns.push(() => rl.close());
  }

  private readonly stopInputFns: Array<() => void> = [];

  private stopInput(): void {
    this.lineHandler = null;
    for (const f of this.stopInputFns.splice(0)) f();
    this.editor.clear();
    this.drawFooter();
  }

  /** What was typed stays on screen above, as in a shell. */
  private echo(line: string): void {
    if (line.trim()) this.ui.screen.print([this.ui.palette.paint('hint', `${this.promptText()}${line}`)]);
  }

  private route(line: string | null): void {
    const ch = this.channel;
    if (line !== null && this.remarkOpen) {
      this.remarkOpen = false;
      this.rt?.interrupt(line);
      return;
    }
    const r = routeLine(line, { pending: ch ? (ch.pending()[0] ?? null) : null });
    // typed for a question someone answered elsewhere a moment ago: not a remark for the agent
    const late = this.lateAsk;
    if (late && (r.kind === 'mail' || r.kind === 'none')) {
      this.lateAsk = null;
      if (r.kind === 'mail') this.ui.line(this.ui.t.tooLate(late));
      return;
    }
    if (r.kind === 'eof') {
      if (r.id) ch?.decline(r.id);
      this.stopInput();
      return;
    }
    if (!ch) {
      if (r.kind === 'oracle') this.asides.push(this.askAside(r.question));
      return;
    }
    if ((r.kind === 'answer' || r.kind === 'pick') && !ch.answer(r.id, r.kind === 'pick' ? String(r.index + 1) : r.text)) this.ui.line(this.ui.t.tooLate(r.id));
    else if (r.kind === 'decline') ch.decline(r.id);
    else if (r.kind === 'mail') ch.send(r.text);
    else if (r.kind === 'oracle') this.asides.push(this.askAside(r.question));
  }

  private sigintHandler = (): void => this.sigint();

  private installSigint(): void {
    process.on('SIGINT', this.sigintHandler);
    this.stops.push(() => process.removeListener('SIGINT', this.sigintHandler));
  }

  /**
   * Ctrl-C: the first press opens a line for a remark (the agent keeps working while you type);
   * Enter interrupts at the next message boundary and the same session continues with the remark.
   * A second press records the step (interrupted-by-human), says how to continue (the ending's words),
   * releases the run lock so `flower status` and `flower` work at once, and exits 130.
   */
  private sigint(): void {
    if (!this.remarkOpen) {
      this.remarkOpen = true;
      this.ui.line(this.ui.t.interruptHint);
      this.drawFooter();
      return;
    }
    // the row (with its session id) is written before the store closes, as on SIGTERM (signals.ts)
    const last = this.rt?.shutdown('interrupted-by-human', LAST_WRITE_MS);
    this.ui.line(`! ${this.ui.s.continueHint(this.quit?.cmd ?? 'flower')}`);
    this.close();
    const exit = () => process.exit(EXIT.interrupted);
    const released = Promise.resolve(last).then(() => this.quit?.lock.release());
    void Promise.race([released, new Promise((r) => setTimeout(r, 5000))]).then(exit, exit);
  }

  /** `? question`: a read-only oracle answers beside the work in its own Runtime (runs/aside: cost and sessions kept apart). */
  private async askAside(question: string): Promise<void> {
    let aside: Runtime | undefined;
    const t = this.ui.t;
    try {
      if (!this.layout) throw new Error('no run to ask beside yet');
      // its rows stay in runs/aside, out of the project's manifest, whatever the store
      aside = new Runtime({
        layout: this.layout.aside(),
        records: new FileRunRecords(this.layout.aside()),
        env: this.io.env,
        resilience: false,
        handoff: false,
        detachChildren: this.tty,
        lang: this.lang,
        ...this.walls,
      });
      const r = await aside.run(oracle({ lang: this.lang }), t.asidePrompt(question, this.recent.join('\n')), { stepName: '旁路问答' });
      this.ui.line(
        t.asideHead(question),
        ...(r.ok ? r.text : (r.error ?? ''))
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => `#   ${l}`),
        `#   $${money(r.cost_usd)}`,
      );
    } catch (e) {
      this.ui.line(t.asideHead(question), `#   x ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      aside?.close();
    }
  }

  /** Side answers still on their way get up to two minutes. */
  async settle(): Promise<void> {
    // the run is over: nothing is waiting here any more (a killed run's set is seen as stale instead)
    await this.watcher?.close();
    if (!this.asides.length) return;
    await Promise.race([Promise.allSettled(this.asides), new Promise((r) => setTimeout(r, 120_000).unref())]);
  }

  /** Stop reading, remove the footer, give the terminal back. Later lines are plain. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    const pending = this.channel?.pending()[0];
    this.stopInput();
    if (pending) this.channel?.decline(pending.id);
    void this.watcher?.close();
    for (const f of this.stops.splice(0)) f();
    this.ui.close();
  }
}
