/**
 * The notification a person receives when a run needs them, version 1: one JSON object per event, the
 * same for a webhook (`--notify URL`, the POST's body) and a command (`--notify-cmd CMD`, its stdin).
 * Pure: no I/O. The shapes are a contract with whatever a person wired to them (a Slack hook, ntfy, a
 * phone), so they carry a version and frozen fixtures (test/fixtures/notify/v1/).
 *
 * Version 1: `version`, `kind`, `at`, `run`, `step`, `folder`, `host`, `cost_usd`, `text` on every kind;
 * `question` adds the question, its options, how long it waits and the command lines that answer it;
 * `verdict` the judge's outcome, the pass count and the reason; `stopped` why and how to continue;
 * `finished` the outcome, the last verdict, the pass count and the duration.
 */
import { z } from 'zod';

export const NOTIFICATION_VERSION = 1;

export const NOTIFICATION_KINDS = ['question', 'verdict', 'stopped', 'finished'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Why a run stopped, as a person acts on it: more money, more time, a credential, or a look at what failed. */
export const STOP_REASONS = ['budget', 'deadline', 'auth', 'config', 'unanswered', 'failed'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

const base = {
  version: z.literal(NOTIFICATION_VERSION),
  /** when it happened (ISO 8601) */
  at: z.string(),
  /** the run id of the manifest rows (`flower log` shows it) */
  run: z.string(),
  /** the step in flight, as the manifest names it (`干活#round2`); '' before the first */
  step: z.string(),
  /** the folder flower was started in: where `flower answer` and a bare `flower` are typed */
  folder: z.string(),
  host: z.string(),
  /** what this run has spent so far, every step, round and judge included */
  cost_usd: z.number(),
  /** one line for a person (a phone's notification title), in the terminal's language */
  text: z.string(),
};

const passCount = { passed: z.number().int().min(0).nullable(), total: z.number().int().min(0).nullable() };

export const questionSchema = z.object({
  ...base,
  kind: z.literal('question'),
  /** the channel's id of the question (`q3`) */
  id: z.string(),
  question: z.string(),
  options: z.array(z.string()),
  /** how long it waits for an answer; null: until answered */
  timeout_s: z.number().nullable(),
  /** the command line that answers it in `folder` (the first option when there are options) */
  answer: z.string(),
  /** one command line per option, in order; empty when the answer is free text */
  answers: z.array(z.string()),
});

export const verdictSchema = z.object({
  ...base,
  kind: z.literal('verdict'),
  /** the judge's outcome: `achieved`, `not_yet` or `unreachable` */
  verdict: z.string(),
  ...passCount,
  reason: z.string(),
});

export const stoppedSchema = z.object({
  ...base,
  kind: z.literal('stopped'),
  reason: z.enum(STOP_REASONS),
  /** the step failure's kind as the manifest row has it (`budget`, `auth`, `rejected` …), null when none */
  failure: z.string().nullable(),
  message: z.string(),
  /** the command line that continues the same sessions in `folder` */
  continue: z.string(),
});

export const finishedSchema = z.object({
  ...base,
  kind: z.literal('finished'),
  /** every step passed */
  ok: z.boolean(),
  /** the last verdict's outcome; null when no judge ran */
  verdict: z.string().nullable(),
  ...passCount,
  duration_s: z.number().min(0),
  /** the run ended by an unexpected error (thrown, not a step that failed): its kind (`store`, `config`, `internal`) and message */
  error: z.object({ kind: z.string(), message: z.string() }).optional(),
});

export const notificationSchema = z.discriminatedUnion('kind', [questionSchema, verdictSchema, stoppedSchema, finishedSchema]);

export type QuestionNotification = z.infer<typeof questionSchema>;
export type VerdictNotification = z.infer<typeof verdictSchema>;
export type StoppedNotification = z.infer<typeof stoppedSchema>;
export type FinishedNotification = z.infer<typeof finishedSchema>;
export type Notification = z.infer<typeof notificationSchema>;

/** What every notification of one run says about where it comes from. */
export interface RunPlace {
  run: string;
  step: string;
  folder: string;
  host: string;
  cost_usd: number;
  /** ISO time; the builders' callers pass the clock's */
  at: string;
  lang?: 'en' | 'zh';
}

const TEXT = {
  en: {
    question: (q: string) => `flower asks: ${q}`,
    verdict: (v: string, n: string) => `flower: the judge says ${v}${n}`,
    stopped: (r: string, cont: string) => `flower stopped (${r}); to continue: ${cont}`,
    finished: (ok: boolean, v: string, n: string) => `flower finished${ok ? '' : ' with a failed step'}${v ? `: ${v}` : ''}${n}`,
    crashed: (kind: string, m: string) => `flower ended by an unexpected error (${kind}): ${firstLine(m)}`,
  },
  zh: {
    question: (q: string) => `flower 在问:${q}`,
    verdict: (v: string, n: string) => `flower:判定者说 ${v}${n}`,
    stopped: (r: string, cont: string) => `flower 停下了(${r});接着做:${cont}`,
    finished: (ok: boolean, v: string, n: string) => `flower 结束了${ok ? '' : '(有一步失败)'}${v ? `:${v}` : ''}${n}`,
    crashed: (kind: string, m: string) => `flower 因意外错误结束(${kind}):${firstLine(m)}`,
  },
} as const;

const tally = (passed: number | null, total: number | null): string => (passed !== null && total ? ` (${passed}/${total})` : '');
const firstLine = (s: string): string => (s.split('\n').find((l) => l.trim()) ?? '').trim();
const round6 = (n: number): number => (Number.isFinite(n) ? Math.round(n * 1e6) / 1e6 : 0);

function head<K extends NotificationKind>(p: RunPlace, kind: K) {
  return { version: NOTIFICATION_VERSION, kind, at: p.at, run: p.run, step: p.step, folder: p.folder, host: p.host, cost_usd: round6(p.cost_usd) } as const;
}

/**
 * A question is waiting. `answerCmd` is how a person answers from another terminal (`flower answer`);
 * with options the first one is the example, and every option has its line.
 * @example question(place, { id: 'q1', question: 'Which output?', options: ['stdout', 'a file'], timeoutS: 1800 }).answer // 'flower answer 1'
 */
export function question(
  p: RunPlace,
  q: { id: string; question: string; options: readonly string[]; timeoutS: number | null; answerCmd?: string },
): QuestionNotification {
  const cmd = q.answerCmd ?? 'flower answer';
  const answers = q.options.map((_o, i) => `${cmd} ${i + 1}`);
  return {
    ...head(p, 'question'),
    text: TEXT[p.lang ?? 'en'].question(firstLine(q.question)),
    id: q.id,
    question: q.question,
    options: [...q.options],
    timeout_s: q.timeoutS,
    answer: answers[0] ?? `${cmd} "<your answer>"`,
    answers,
  };
}

/** The judge's verdict (flower sends it when the goal is judged unreachable: the person decides what next). */
export function verdict(p: RunPlace, v: { outcome: string; passed: number | null; total: number | null; reason: string }): VerdictNotification {
  return {
    ...head(p, 'verdict'),
    text: TEXT[p.lang ?? 'en'].verdict(v.outcome, tally(v.passed, v.total)),
    verdict: v.outcome,
    passed: v.passed,
    total: v.total,
    reason: v.reason,
  };
}

/**
 * Why a run stopped, from the failed step's failure kind (a string: kinds are added over time). Budget
 * and deadline say what to raise; auth and config what to fix; everything else is a failed step.
 * @example stopReason('budget') // 'budget'
 * @example stopReason('network') // 'failed'
 */
export function stopReason(kind: string | null | undefined, o: { unanswered?: boolean } = {}): StopReason {
  if (kind === 'budget' || kind === 'deadline' || kind === 'auth' || kind === 'config') return kind;
  return o.unanswered ? 'unanswered' : 'failed';
}

/** The command line that continues after a stop of this reason, from the one that continues at all. */
export function continueLine(reason: StopReason, cmd: string): string {
  if (reason === 'budget') return `${cmd} --budget <more USD>`;
  if (reason === 'deadline') return `${cmd} --deadline <later>`;
  if (reason === 'auth') return `flower setup && ${cmd}`;
  return cmd;
}

/** The run stopped for something the person must see to. */
export function stopped(p: RunPlace, s: { failure: string | null; message: string; continueCmd: string; unanswered?: boolean }): StoppedNotification {
  const reason = stopReason(s.failure, { unanswered: s.unanswered ?? false });
  const cont = continueLine(reason, s.continueCmd);
  return {
    ...head(p, 'stopped'),
    text: TEXT[p.lang ?? 'en'].stopped(reason, cont),
    reason,
    failure: s.failure,
    message: s.message,
    continue: cont,
  };
}

/** The end of a run: the outcome, the last verdict and its pass count, the cost (in `cost_usd`) and the wall time. */
export function finished(
  p: RunPlace,
  f: { ok: boolean; verdict: string | null; passed: number | null; total: number | null; durationS: number; error?: { kind: string; message: string } },
): FinishedNotification {
  const t = TEXT[p.lang ?? 'en'];
  return {
    ...head(p, 'finished'),
    text: f.error ? t.crashed(f.error.kind, f.error.message) : t.finished(f.ok, f.verdict ?? '', tally(f.passed, f.total)),
    ...(f.error ? { error: f.error } : {}),
    ok: f.ok,
    verdict: f.verdict,
    passed: f.passed,
    total: f.total,
    duration_s: Math.max(0, Math.round(f.durationS * 10) / 10),
  };
}
