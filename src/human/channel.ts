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
import type { FlowerEvent } from '../runtime/events.js';
import { askEvent, inboxText, mailEvent, rejectionEvent } from './events.js';
import { askEntry, mailEntry, QaLog } from './log.js';
import { Mailbox } from './mailbox.js';
import { cleanOptions, pickOption } from './options.js';
import { AskQueue, snapshot } from './pull.js';
import type { FieldIssue } from './rejection.js';
import { repliesFor, textsFor, type ChannelTexts } from './replies.js';
import { checkOptions, DEFAULT_TIMEOUT_S, MAX_TIMER_MS, toolTimeoutMs } from './settings.js';
import { submissionToolName, submissionTools, SUBMISSION_KINDS, type SubmissionDocs, type SubmissionKind } from './submissions.js';
import { VerdictReviewer } from './verdicts.js';
import type { Ask, AskResult, AskState, HumanChannelOptions, Mail, Replies, Via } from './types.js';

export const SERVER_NAME = 'human';
export const mcpToolName = (tool: string): string => `mcp__${SERVER_NAME}__${tool}`;
export const ASK_TOOL = mcpToolName('ask');
export const INBOX_TOOL = mcpToolName('inbox');
export { DEFAULT_TIMEOUT_S };

interface Waiting {
  ask: Ask;
  resolve: (r: AskResult) => void;
  timer: NodeJS.Timeout | undefined;
  detach: (() => void) | undefined;
}

type Final = Exclude<AskState, 'asked'>;

const reply = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });
function signalOf(extra: unknown): AbortSignal | undefined {
  if (typeof extra !== 'object' || extra === null) return undefined;
  const s = (extra as { signal?: unknown }).signal;
  return s instanceof AbortSignal ? s : undefined;
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
  private readonly pull = new AskQueue((id) => this.waiting.has(id));
  private readonly submissionKinds = new Set<SubmissionKind>();
  private readonly submitted = new Map<SubmissionKind, SubmissionDocs[SubmissionKind]>();
  /** the fields the last rejected submission of each kind got wrong (cleared when one is kept) */
  private readonly rejections = new Map<SubmissionKind, FieldIssue[]>();
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
      tool('inbox', this.texts.inboxTool, {}, async () => reply(inboxText(this.texts, this.deliver(), this.amendPath))),
      ...submissionTools(
        this.submissionKinds,
        {
          keep: (kind, doc) => {
            this.submitted.set(kind, doc);
            this.rejections.delete(kind);
          },
          reject: (kind, issues) => {
            this.rejections.set(kind, issues);
            this.emit(rejectionEvent(kind, issues));
          },
        },
        this.lang,
        { verdict: () => this.verdictReviewer.review },
      ),
    ];
    const timeout = toolTimeoutMs(this.timeoutS);
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

  /** What the latest rejected `submit_<kind>` got wrong, when none was kept after it; taking clears it. */
  takeRejection(kind: SubmissionKind): FieldIssue[] | null {
    const issues = this.rejections.get(kind);
    this.rejections.delete(kind);
    return issues ?? null;
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
      this.pull.offer(ask);
      this.emit(askEvent(ask));
    });
  }

  /**
   * Answer a pending question. A 1-based number within the options (or an option's exact text)
   * picks that option: the model receives the option's text and `optionIndex` is recorded. An empty
   * answer declines. False when the question is no longer pending.
   */
  answer(id: string, text: string, o: { via?: Via } = {}): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    const t = typeof text === 'string' ? text.trim() : '';
    if (t === '') return this.decline(id);
    const pick = pickOption(w.ask.options, t);
    // the first answer wins: whoever comes second finds the question gone (false) and says "too late"
    if (o.via) w.ask.via = o.via;
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
    return this.pull.next();
  }

  /** Like nextAsk, but waits up to `timeoutMs` for a question to arrive. */
  waitForAsk(timeoutMs: number): Promise<Ask | null> {
    return this.pull.wait(timeoutMs, this.closed);
  }

  /** Decline everything pending and refuse to wait from now on ("nobody is here"). */
  close(): void {
    this.closed = true;
    for (const id of [...this.waiting.keys()]) this.settle(id, 'declined', null, null);
    this.pull.close();
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
    this.emit(askEvent(ask));
    const answered = state === 'answered';
    return { id: ask.id, state, answer: answered ? answer : null, optionIndex, reason: answered ? null : answer };
  }

  // ── mail ──────────────────────────────────────────────────────────────────────────────────

  /**
   * A remark from the person: queued for the inbox tool and appended to the brief (amendPath).
   * Empty text is ignored (null).
   */
  send(text: string, o: { via?: Via } = {}): Mail | null {
    const t = typeof text === 'string' ? text.trim() : '';
    if (t === '') return null;
    const mail = this.mailbox.post(this.nextId('m'), t, new Date(), o.via ?? null);
    this.write(mailEntry(mail));
    this.emit(mailEvent(mail));
    return mail;
  }

  /** Hand out the queued remarks (what the inbox tool does), marking them delivered. */
  deliver(): Mail[] {
    const mails = this.mailbox.deliver();
    for (const m of mails) this.emit(mailEvent(m));
    return mails;
  }

  /** Every remark sent through this channel (copies). */
  mail(): Mail[] {
    return this.mailbox.all();
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
