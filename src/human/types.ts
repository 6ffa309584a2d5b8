/**
 * The shapes of the human channel: a question (Ask), a remark the person sends on their own (Mail),
 * and what the framework gets back when it asks.
 */
import type { Lang } from '../config/index.js';
import type { EventSink } from '../runtime/events.js';

/**
 * `asked` while waiting; the others are final. `invalid` (empty question) and `over_budget` never
 * reach the person; `timeout` also covers "nobody is here" (timeoutS ≤ 0, a closed channel).
 */
export type AskState = 'asked' | 'answered' | 'timeout' | 'declined' | 'over_budget' | 'invalid';

export const ASK_STATES: readonly AskState[] = ['asked', 'answered', 'timeout', 'declined', 'over_budget', 'invalid'];

/** The fall-through states whose reply to the model is a fixed text. */
export type FallThrough = 'timeout' | 'declined' | 'over_budget' | 'invalid';

export interface Ask {
  /** `q<n>`, from the counter shared with mail ids */
  id: string;
  question: string;
  options: string[];
  /** ISO time the question was put */
  asked_at: string;
  state: AskState;
  /** the answer as the model receives it (a picked option's text), or a decline reason; null otherwise */
  answer: string | null;
  /** 0-based index into `options` when the answer picked one (by number or by its exact text) */
  optionIndex: number | null;
  /** questions left after this one; -1 when there is no quota (framework questions: the quota unchanged) */
  remaining: number;
  /** asked by flower itself (e.g. the judge's escalation): never counted against the quota */
  framework: boolean;
  /** ISO time it reached a final state */
  settled_at: string | null;
  /** where the answer came from when not this process's own UI: `inbox` (flower answer, the ui) */
  via?: Via | null;
}

/** Where an answer or a remark came from: the durable inbox (another process) — unset for the terminal. */
export type Via = 'inbox';

export type MailState = 'queued' | 'delivered';

export interface Mail {
  /** `m<n>`, from the counter shared with question ids */
  id: string;
  text: string;
  sent_at: string;
  state: MailState;
  /** appended to the brief (amendPath) as `## 运行中补充(HH:MM:SS)` */
  amended: boolean;
  delivered_at: string | null;
  /** `inbox` when it came through the durable inbox (flower say, the ui) */
  via?: Via | null;
}

/** What `channel.ask()` resolves to. Never rejects. */
export interface AskResult {
  id: string;
  state: Exclude<AskState, 'asked'>;
  /** the answer text (a picked option's text) when answered, else null */
  answer: string | null;
  /** 0-based index of the picked option, else null */
  optionIndex: number | null;
  /** why it was declined, when the person (or the UI) gave a reason; else null */
  reason: string | null;
}

export type Replies = Readonly<Record<FallThrough, string>>;

export interface HumanChannelOptions {
  /** push-style UIs: every `ask` and `mail` event. Must not block; a throw is collected in `uiErrors`. */
  onEvent?: EventSink;
  /** questions the agents may ask: null/undefined/negative = unlimited, 0 = none. Framework questions never count. */
  maxAsks?: number | null;
  /** seconds to wait for an answer (default 1800); null waits forever; ≤ 0 answers "nobody is here" at once */
  timeoutS?: number | null;
  /** the Q&A log, e.g. `.flower/notes/问答记录.md` (append-only) */
  logPath?: string;
  /** the brief remarks are appended to, e.g. `.flower/notes/需求.md` */
  amendPath?: string;
  /** language of the texts the model reads (default: FLOWER_LANG / LANG) */
  lang?: Lang;
  /** replace some of the fixed fall-through replies */
  replies?: Partial<Replies>;
}
