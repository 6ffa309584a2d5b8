/**
 * HumanChannel — how agents reach the person: an in-process MCP server named `human` with `ask`
 * (put one question, wait for the answer) and `inbox` (remarks the person sent, never waits),
 * plus optional `submit_*` tools that hand documents over as checked fields.
 *
 * Invariants:
 * - the model never receives an exception: every way a question can end has a reply text;
 * - nothing waits forever unless asked to (timeoutS null): each wait is bounded, close() declines
 *   what is left, and a cancelled tool call declines its question;
 * - UI callbacks and file writes can fail without stopping the run (uiErrors / ioErrors);
 * - flower's own questions (framework: true) never use the agents' quota — otherwise a clarifier
 *   that spent it all turned the judge's escalation into over_budget and aborted the run.
 *
 * Push-style UIs take `onEvent`; pull-style UIs call `nextAsk()` / `waitForAsk()` and answer by id.
 */
import { createSdkMcpServer, tool, type McpSdkServerConfigWithInstance } from '@anthropic-ai/claude-agent-sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { detectLang, type Lang } from '../config/index.js';
import { ConfigError } from '../errors.js';
import { event, type FlowerEvent } from '../runtime/events.js';
import { askEntry, mailEntry, QaLog } from './log.js';
import { Mailbox } from './mailbox.js';
import { cleanOptions, pickOption } from './options.js';
import { repliesFor, textsFor, type ChannelTexts } from './replies.js';
import { submissionToolName, submissionTools, SUBMISSION_KINDS, type SubmissionDocs, type SubmissionKind } from './submissions.js';
import { VerdictReviewer } from './verdicts.js';
import type { Ask, AskResult, AskState, HumanChannelOptions, Mail, Replies } from './types.js';

export const SERVER_NAME = 'human';
export const mcpToolName = (tool: string): string => `mcp__${SERVER_NAME}__${tool}`;
export const ASK_TOOL = mcpToolName('ask');
export const INBOX_TOOL = mcpToolName('inbox');
export const DEFAULT_TIMEOUT_S = 1800;

/** setTimeout's ceiling (~24.8 days); a longer wait would fire at once, so it counts as "forever". */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Waiting {
  ask: Ask;
  resolve: (r: AskResult) => void;
  timer: NodeJS.Timeout | undefined;
  detach: (() => void) | undefined;
}

type Final = Exclude<AskState, 'asked'>;

const reply = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });
const snapshot = (a: Ask): Ask => ({ ...a, options: [...a.options] });

function signalOf(extra: unknown): AbortSignal | undefined {
  if (typeof extra !== 'object' || extra === null) return undefined;
  const s = (extra as { signal?: unknown }).signal;
  return s instanceof AbortSignal ? s : undefined;
}

function checkOptions(o: HumanChannelOptions): { maxAsks: number | null; timeoutS: number | null } {
  let maxAsks: number | null = null;
  if (o.maxAsks !== undefined && o.maxAsks !== null) {
    if (!Number.isInteger(o.maxAsks)) {
      throw new ConfigError('bad-max-asks', `HumanChannel maxAsks must be a whole number (null or negative = unlimited, 0 = none), got ${String(o.maxAsks)}.`);
    }
    maxAsks = o.maxAsks < 0 ? null : o.maxAsks;
  }
  let timeoutS: number | null = DEFAULT_TIMEOUT_S;
  if (o.timeoutS === null) timeoutS = null;
  else if (o.timeoutS !== undefined) {
    if (typeof o.timeoutS !== 'number' || Number.isNaN(o.timeoutS)) {
      throw new ConfigError(
        'bad-timeout',
        `HumanChannel timeoutS must be a number of seconds (null = wait forever, ≤ 0 = nobody is here), got ${String(o.timeoutS)}.`,
      );
    }
    timeoutS = o.timeoutS === Infinity ? null : o.timeoutS;
  }
  return { maxAsks, timeoutS };
}

export class HumanChannel {
  /** exceptions thrown (or rejected) by `onEvent`; collected, never fatal */
  readonly uiErrors: unknown[] = [];
  /** log / amend writes that failed; collected, never fatal */
  readonly ioErrors: string[] = [];
  readonly maxAsks: number | null;
  readonly timeoutS: number | null;
  readonly lang: Lang;
  readonly logPath: string | undefined;
  readonly amendPath: string | undefined;

  private readonly onEvent: HumanChannelOptions['onEvent'];
  private readonly listeners = new Set<(e: FlowerEvent) => void>();
  private readonly replies: Replies;
  private readonly texts: ChannelTexts;
  private readonly log: QaLog | undefined;
  private readonly mailbox: Mailbox;
  private readonly asks: Ask[] = [];
  private readonly waiting = new Map<string, Waiting>();
  private readonly queue: Ask[] = [];
  private readonly pullers: Array<(a: Ask | null) => void> = [];
  private readonly submissionKinds = new Set<SubmissionKind>();
  private readonly submitted = new Map<SubmissionKind, SubmissionDocs[SubmissionKind]>();
  /** verdicts are held against the frozen goal as they arrive (set by the judge gate before each judge) */
  readonly verdictReviewer: VerdictReviewer;
  private counter = 0;
  private used = 0;
  private closed = false;

  constructor(o: HumanChannelOptions = {}) {
    const { maxAsks, timeoutS } = checkOptions(o);
    this.maxAsks = maxAsks;
    this.timeoutS = timeoutS;
    this.lang = o.lang ?? detectLang();
    this.onEvent = o.onEvent;
    this.replies = repliesFor(this.lang, o.replies);
    this.texts = textsFor(this.lang);
    this.logPath = o.logPath;
    this.amendPath = o.amendPath;
    this.log = o.logPath ? new QaLog(o.logPath) : undefined;
    this.mailbox = new Mailbox(o.amendPath, { onProblem: (m) => this.ioErrors.push(m) });
    this.verdictReviewer = new VerdictReviewer(this.lang);
  }

  // ── the MCP side ──────────────────────────────────────────────────────────────────────────

  /**
   * A NEW server config on every read: one MCP server instance serves one connection at a time, and
   * one channel is shared by steps that may overlap. Read it once per query (e.g. when building a spec).
   */
  get server(): McpSdkServerConfigWithInstance {
    const askShape = {
      question: z.string().describe(this.texts.askQuestion),
      // a string is accepted too: models sometimes send the list as JSON text (cleanOptions parses it)
      options: z
        .union([z.array(z.string()), z.string()])
        .optional()
        .describe(this.texts.askOptions),
    };
    const tools = [
      tool('ask', this.texts.askTool, askShape, async (args, extra) => {
        const signal = signalOf(extra);
        const r = await this.ask(args.question, cleanOptions(args.options), signal ? { signal } : {});
        return reply(this.replyFor(r));
      }),
      tool('inbox', this.texts.inboxTool, {}, async () => reply(this.inboxText(this.deliver()))),
      ...submissionTools(
        this.submissionKinds,
        (kind, doc) => {
          this.submitted.set(kind, doc);
        },
        this.lang,
        { verdict: () => this.verdictReviewer.review },
      ),
    ];
    const timeout = this.toolTimeoutMs();
    // alwaysLoad: a deferred `ask` (behind tool search) is one the model may never find
    return createSdkMcpServer({ name: SERVER_NAME, version: '1.0.0', alwaysLoad: true, tools, ...(timeout ? { timeout } : {}) });
  }

  /** Names for allowedTools: ask, inbox, and the submit tools turned on. */
  get toolNames(): string[] {
    return [ASK_TOOL, INBOX_TOOL, ...SUBMISSION_KINDS.filter((k) => this.submissionKinds.has(k)).map((k) => mcpToolName(submissionToolName(k)))];
  }

  /** Offer `submit_<kind>` tools on servers read from now on. */
  withSubmissions(kinds: readonly SubmissionKind[]): this {
    for (const k of kinds) {
      if (!SUBMISSION_KINDS.includes(k)) {
        throw new ConfigError('bad-submission', `unknown submission kind '${String(k)}'; use one of ${SUBMISSION_KINDS.join(', ')}.`);
      }
      this.submissionKinds.add(k);
    }
    return this;
  }

  /**
   * The document of the latest `submit_<kind>` call, converted; null when none came since the last
   * take. Taking clears it, so a later attempt never reads an earlier round's document.
   */
  takeSubmission<K extends SubmissionKind>(kind: K): SubmissionDocs[K] | null {
    const doc = this.submitted.get(kind);
    this.submitted.delete(kind);
    return (doc as SubmissionDocs[K] | undefined) ?? null;
  }

  /** The MCP call must outlive our own wait, or the harness cuts a question the person is typing. */
  private toolTimeoutMs(): number | undefined {
    if (this.timeoutS === null) return MAX_TIMER_MS;
    if (this.timeoutS <= 0) return undefined;
    return Math.min(MAX_TIMER_MS, Math.ceil((this.timeoutS + 60) * 1000));
  }

  private replyFor(r: AskResult): string {
    if (r.state === 'answered') return r.answer ?? '';
    if (r.state === 'declined' && r.reason) return `${this.replies.declined}${this.texts.declinedBecause(r.reason)}`;
    return this.replies[r.state];
  }

  // ── asking ────────────────────────────────────────────────────────────────────────────────

  /** Questions left for agents; -1 when there is no quota. */
  get remaining(): number {
    return this.maxAsks === null ? -1 : Math.max(0, this.maxAsks - this.used);
  }

  /**
   * Put a question and wait for how it ends. Never rejects. Agents reach this through the `ask`
   * tool; flower itself calls it with `framework: true` (never counted against the quota).
   */
  async ask(question: string, options: readonly string[] = [], opts: { framework?: boolean; signal?: AbortSignal } = {}): Promise<AskResult> {
    const framework = opts.framework === true;
    const ask: Ask = {
      id: this.nextId('q'),
      question: typeof question === 'string' ? question.trim() : '',
      options: cleanOptions([...options]),
      asked_at: new Date().toISOString(),
      state: 'asked',
      answer: null,
      optionIndex: null,
      remaining: this.remaining,
      framework,
      settled_at: null,
    };
    this.asks.push(ask);
    // checked in this order; an invalid ask is refused before it can use the quota
    if (ask.question === '') return this.finish(ask, 'invalid');
    if (!framework && this.maxAsks !== null && this.used >= this.maxAsks) return this.finish(ask, 'over_budget');
    if (!framework) this.used += 1;
    ask.remaining = this.remaining;
    if (this.closed || (this.timeoutS !== null && this.timeoutS <= 0)) return this.finish(ask, 'timeout');
    if (opts.signal?.aborted) return this.finish(ask, 'declined');
    return new Promise<AskResult>((resolve) => {
      const w: Waiting = { ask, resolve, timer: undefined, detach: undefined };
      // registered before the event goes out: a UI may answer from inside onEvent
      this.waiting.set(ask.id, w);
      const ms = this.timeoutS === null ? Infinity : this.timeoutS * 1000;
      if (ms <= MAX_TIMER_MS) w.timer = setTimeout(() => this.settle(ask.id, 'timeout', null, null), ms);
      const signal = opts.signal;
      if (signal) {
        const onAbort = () => this.settle(ask.id, 'declined', null, null);
        signal.addEventListener('abort', onAbort, { once: true });
        w.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.offer(ask);
      this.emit(this.askEvent(ask));
    });
  }

  /**
   * Answer a pending question. A 1-based number within the options (or an option's exact text)
   * picks that option: the model receives the option's text and `optionIndex` is recorded. An empty
   * answer declines. False when the question is no longer pending.
   */
  answer(id: string, text: string): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    const t = typeof text === 'string' ? text.trim() : '';
    if (t === '') return this.decline(id);
    const pick = pickOption(w.ask.options, t);
    return this.settle(id, 'answered', pick ? pick.text : t, pick ? pick.index : null);
  }

  /** Skip a pending question (the model is told to decide itself). False when no longer pending. */
  decline(id: string, reason?: string): boolean {
    const r = typeof reason === 'string' ? reason.trim() : '';
    return this.settle(id, 'declined', r === '' ? null : r, null);
  }

  /** Questions waiting for an answer, oldest first (copies). */
  pending(): Ask[] {
    return [...this.waiting.values()].map((w) => snapshot(w.ask));
  }

  /** Every question put through this channel, settled or not (copies). */
  history(): Ask[] {
    return this.asks.map(snapshot);
  }

  /** Pull-style UIs: the next question not yet handed out that is still pending; null when none. */
  nextAsk(): Ask | null {
    while (this.queue.length > 0) {
      const a = this.queue.shift()!;
      if (this.waiting.has(a.id)) return snapshot(a);
    }
    return null;
  }

  /** Like nextAsk, but waits up to `timeoutMs` for a question to arrive. */
  waitForAsk(timeoutMs: number): Promise<Ask | null> {
    const now = this.nextAsk();
    if (now || this.closed || !(timeoutMs > 0)) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (a: Ask | null) => {
        clearTimeout(timer);
        resolve(a);
      };
      const timer = setTimeout(
        () => {
          const i = this.pullers.indexOf(done);
          if (i >= 0) this.pullers.splice(i, 1);
          resolve(null);
        },
        Math.min(timeoutMs, MAX_TIMER_MS),
      );
      this.pullers.push(done);
    });
  }

  /** Decline everything pending and refuse to wait from now on ("nobody is here"). */
  close(): void {
    this.closed = true;
    for (const id of [...this.waiting.keys()]) this.settle(id, 'declined', null, null);
    for (const p of this.pullers.splice(0)) p(null);
  }

  private offer(ask: Ask): void {
    const p = this.pullers.shift();
    if (p) p(snapshot(ask));
    else this.queue.push(ask);
  }

  private settle(id: string, state: Final, answer: string | null, optionIndex: number | null): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    this.waiting.delete(id);
    if (w.timer) clearTimeout(w.timer);
    w.detach?.();
    w.resolve(this.finish(w.ask, state, answer, optionIndex));
    return true;
  }

  private finish(ask: Ask, state: Final, answer: string | null = null, optionIndex: number | null = null): AskResult {
    ask.state = state;
    ask.answer = answer;
    ask.optionIndex = optionIndex;
    ask.settled_at = new Date().toISOString();
    this.write(askEntry(ask));
    this.emit(this.askEvent(ask));
    const answered = state === 'answered';
    return { id: ask.id, state, answer: answered ? answer : null, optionIndex, reason: answered ? null : answer };
  }

  private askEvent(a: Ask): FlowerEvent {
    return event('ask', a.question, {
      id: a.id,
      question: a.question,
      options: [...a.options],
      state: a.state,
      answer: a.answer,
      option_index: a.optionIndex,
      remaining: a.remaining,
      asked_at: a.asked_at,
      settled_at: a.settled_at,
      framework: a.framework,
    });
  }

  // ── mail ──────────────────────────────────────────────────────────────────────────────────

  /**
   * A remark from the person: queued for the inbox tool and appended to the brief (amendPath).
   * Empty text is ignored (null).
   */
  send(text: string): Mail | null {
    const t = typeof text === 'string' ? text.trim() : '';
    if (t === '') return null;
    const mail = this.mailbox.post(this.nextId('m'), t);
    this.write(mailEntry(mail));
    this.emit(this.mailEvent(mail));
    return mail;
  }

  /** Hand out the queued remarks (what the inbox tool does), marking them delivered. */
  deliver(): Mail[] {
    const mails = this.mailbox.deliver();
    for (const m of mails) this.emit(this.mailEvent(m));
    return mails;
  }

  /** Every remark sent through this channel (copies). */
  mail(): Mail[] {
    return this.mailbox.all();
  }

  private inboxText(mails: Mail[]): string {
    const t = this.texts;
    if (mails.length === 0) return t.inboxEmpty;
    const list = mails.map((m, i) => `${i + 1}. ${m.text.replace(/\n/g, '\n   ')}`);
    const saved = !this.amendPath ? t.inboxNotSaved : mails.every((m) => m.amended) ? t.inboxSaved(this.amendPath) : t.inboxSomeNotSaved;
    return [t.inboxHead(mails.length), ...list, '', saved].join('\n');
  }

  private mailEvent(m: Mail): FlowerEvent {
    return event('mail', m.text, {
      id: m.id,
      kind: 'mail',
      state: m.state,
      amended: m.amended,
      sent_at: m.sent_at,
      delivered_at: m.delivered_at,
    });
  }

  // ── plumbing ──────────────────────────────────────────────────────────────────────────────

  private nextId(prefix: 'q' | 'm'): string {
    this.counter += 1;
    return `${prefix}${this.counter}`;
  }

  private write(entry: string): void {
    const problem = this.log?.append(entry);
    if (problem) this.ioErrors.push(problem);
  }

  /**
   * Another UI on the same channel (e.g. `flower run` connecting the terminal to the channel a
   * workflow module built): it gets every ask and mail event too. Returns the way to stop listening.
   */
  listen(fn: (e: FlowerEvent) => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  private emit(e: FlowerEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch (err) {
        this.uiErrors.push(err);
      }
    }
    if (!this.onEvent) return;
    try {
      const r: unknown = this.onEvent(e);
      // an async UI callback fails later; its rejection is collected the same way
      if (r instanceof Promise)
        r.catch((err: unknown) => {
          this.uiErrors.push(err);
        });
    } catch (err) {
      this.uiErrors.push(err);
    }
  }
}
