/**
 * The running flower's side of the durable inbox (src/state/inbox-format.ts): it publishes what the
 * channel is asking now (so `flower answer`, `flower status` and the ui in other processes can see it)
 * and applies what was posted — an answer resolves the pending `ask` exactly as if typed at the
 * terminal, mail goes to the inbox tool and the brief as a typed remark does, a stop-after-step is
 * handed to whoever runs the steps.
 *
 * Invariants:
 * - an item is applied at most by one process (the backend's claim) and at most once here (scans run
 *   one at a time); a claimed item always gets an outcome unless the process dies in between;
 * - an answer never reaches a question it was not meant for: it names the question (owner and id) it
 *   answers, or, posted while nothing was waiting, it answers the next question asked;
 * - the terminal and the inbox race through `channel.answer`: the first wins, the other hears "too late";
 * - nothing here stops the run: a failed scan or publish is reported and tried again on the next tick.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { errorText } from '../errors.js';
import { processStartTime, type InboxItem, type InboxOutcome, type RunInbox, type WaitingSet } from '../state/index.js';
import type { HumanChannel } from './channel.js';

export interface InboxWatcherOptions {
  inbox: RunInbox;
  channel: HumanChannel;
  /** a `stop-after-step` arrived: stop after the step in progress */
  onStop?: () => void;
  /** something worth one line: an item set aside, a scan that failed */
  onNotice?: (text: string) => void;
  /** how often to look again when no change was signalled (default: the backend's, ~1 s) */
  pollMs?: number;
}

export class InboxWatcher {
  /** this process, in the waiting set and in every answer aimed at one of its questions */
  readonly owner = crypto.randomUUID();
  /** items applied here, in order (for tests and the closing line) */
  readonly applied: Array<{ id: string; kind: string; outcome: InboxOutcome['state'] }> = [];
  private readonly startedAt = processStartTime(process.pid);
  private stops: Array<() => void> = [];
  private scanning: Promise<void> | undefined;
  private again = false;
  private publishing: Promise<void> = Promise.resolve();
  private closed = false;
  private lastProblem = '';

  constructor(private readonly o: InboxWatcherOptions) {}

  /** Publish the waiting set, apply what was posted before this start, then watch. */
  async start(): Promise<void> {
    this.stops.push(
      this.o.channel.listen((e) => {
        if (e.kind !== 'ask') return;
        this.publish();
        // an answer posted while nothing was waiting is for the question that just started
        if (e.payload.state === 'asked') this.scan();
      }),
    );
    this.publish();
    await this.publishing;
    await this.scan();
    if (this.closed) return;
    this.stops.push(this.o.inbox.watch(() => void this.scan(), this.o.pollMs !== undefined ? { pollMs: this.o.pollMs } : {}));
  }

  /** Stop watching and say nothing is waiting any more. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const f of this.stops.splice(0)) f();
    await this.scanning?.catch(() => {});
    await this.publishing;
    await this.o.inbox.clearWaiting(this.owner).catch((e: unknown) => this.problem(`could not clear the waiting question: ${errorText(e)}`));
  }

  private problem(text: string): void {
    // a server that is down says so once, not every second
    if (text === this.lastProblem) return;
    this.lastProblem = text;
    this.o.onNotice?.(text);
  }

  private waitingSet(): WaitingSet {
    const ch = this.o.channel;
    return {
      version: 1,
      owner: this.owner,
      pid: process.pid,
      host: os.hostname(),
      started_at: this.startedAt,
      updated_at: new Date().toISOString(),
      questions: ch.pending().map((a) => ({ id: a.id, question: a.question, options: [...a.options], asked_at: a.asked_at, timeout_s: ch.timeoutS })),
    };
  }

  /** Writes go out in order; each writes the set as it is when its turn comes. */
  private publish(): void {
    if (this.closed) return;
    this.publishing = this.publishing.then(async () => {
      if (this.closed) return;
      try {
        await this.o.inbox.publishWaiting(this.waitingSet());
      } catch (e) {
        this.problem(`could not publish the waiting question: ${errorText(e)}`);
      }
    });
  }

  /** One scan at a time; a change signalled during a scan runs one more after it. */
  scan(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.scanning) {
      this.again = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      do {
        this.again = false;
        try {
          for (const item of await this.o.inbox.pending({ onNotice: (n) => this.problem(`${n.path} ${n.reason}; kept it as ${n.keptAt}`) })) {
            if (this.closed) break;
            await this.apply(item);
          }
        } catch (e) {
          this.problem(`could not read the inbox in ${this.o.inbox.where}: ${errorText(e)}`);
        }
      } while (this.again && !this.closed);
    })().finally(() => {
      this.scanning = undefined;
    });
    return this.scanning;
  }

  private async apply(item: InboxItem): Promise<void> {
    const b = item.body;
    const ch = this.o.channel;
    let target: string | null = null;
    if (b.kind === 'answer') {
      if (b.to === null) {
        target = ch.pending()[0]?.id ?? null;
        // nothing is asked yet: it stays posted for the next question
        if (target === null) return;
      } else if (b.to.owner === this.owner) target = b.to.id;
    }
    if (!(await this.o.inbox.claim(item.id, this.owner))) return; // another process took it
    const at = () => new Date().toISOString();
    let outcome: InboxOutcome;
    if (b.kind === 'mail') {
      ch.send(b.text, { via: 'inbox' });
      outcome = { version: 1, state: 'applied', at: at() };
    } else if (b.kind === 'stop-after-step') {
      this.o.onStop?.();
      outcome = { version: 1, state: 'applied', at: at() };
    } else if (target === null) {
      outcome = { version: 1, state: 'too-late', at: at(), detail: 'the question belonged to a flower run that has ended' };
    } else if (ch.answer(target, b.text, { via: 'inbox' })) {
      const asked = ch.history().find((a) => a.id === target);
      outcome = { version: 1, state: 'applied', at: at(), question: target, ...(asked?.answer != null ? { answer: asked.answer } : {}) };
    } else {
      outcome = { version: 1, state: 'too-late', at: at(), question: target, detail: `${target} is no longer waiting (answered, skipped or timed out)` };
    }
    this.applied.push({ id: item.id, kind: b.kind, outcome: outcome.state });
    try {
      await this.o.inbox.finish(item.id, outcome);
    } catch (e) {
      this.problem(`could not record what became of inbox item ${item.id}: ${errorText(e)}`);
    }
  }
}
