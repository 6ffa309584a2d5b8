/**
 * Handoff (换代): the fixed prompt that asks the outgoing session for its handoff, the in-process
 * `submit_handoff` tool that receives it, the on-disk record, the stop messages, and `Generations` —
 * one step's handoff state (threshold, routes, the writing round, the brakes). The Runtime's loop
 * asks it when to cut and what the successor's prompt is.
 *
 * Why the same session writes it: only that session has the context; a new role would summarise a
 * transcript it never lived through. Why a tool: a schema-checked submission needs no heading guessing;
 * the markdown answer stays the fallback (Handoff.parse).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createSdkMcpServer, tool, type McpSdkServerConfigWithInstance } from '@anthropic-ai/claude-agent-sdk';
import type { Lang } from '../config/index.js';
import { Handoff, handoffFromSubmission, type HandoffSubmission } from '../docs/index.js';
import { errorText } from '../errors.js';
import { RunLayout, safeStepName, stamp } from '../state/index.js';
import type { AttemptOutcome, InterruptCause } from './attempt.js';
import type { EventKind } from './events.js';
import type { StepResult } from './manifest.js';
import { isOverflow } from './resilience.js';
import { AgentSpec } from './spec.js';
import {
  MAX_DEGRADED_STREAK,
  STARTUP_FLOOR,
  configuredModel,
  plausibleWindow,
  formatTokens,
  rememberOverflow,
  statedLimit,
  thresholds,
  type HandoffPolicy,
  type Thresholds,
} from './window.js';

export const HANDOFF_SERVER = 'flower_handoff';
export const HANDOFF_TOOL_NAME = 'submit_handoff';
/** The name the model calls (the harness prefixes MCP tools with `mcp__<server>__`). */
export const HANDOFF_TOOL = `mcp__${HANDOFF_SERVER}__${HANDOFF_TOOL_NAME}`;

/**
 * Slots: {used} ("152.0K") and {window} ("200K"). The rules each answer one way successors failed:
 * decisions without their why get reopened; forgotten dead ends get paid for twice (and invented ones
 * mislead: "none yet" is an answer); a vague next step costs half an hour; pasted content instead of
 * paths bloats the new context; restating the goal duplicates the frozen notes/.
 */
export const HANDOFF_PROMPT: Readonly<Record<Lang, string>> = Object.freeze({
  zh: [
    '你的上下文已经用到 {used}(窗口 {window}),快满了。停下手上的活,现在写交接书:接手的是一个没有你任何记忆的新会话,它只有这份交接书和磁盘。',
    '',
    `用工具 ${HANDOFF_TOOL_NAME} 提交,五个部分:`,
    '1. 现在在做什么:一两句,做到哪一步了。',
    '2. 已经定下的:已经做出的决定,每条都带上为什么(不写为什么,接手的人会把它重新推翻一遍)。',
    '3. 走不通的路:试过并排除的路,以及为什么不行。这是最值钱、也最常被忘掉的部分;真的还没有就写「暂无」,不要编。',
    '4. 下一步:具体到能直接动手,比如「跑 X;如果 Y,就改 Z」。',
    '5. 现场:关键文件、产出物、分支的路径。只写路径,不贴内容。',
    '',
    '规则:自成一体,接手的人看不到这段对话;给指针,不给内容;不要复述需求和目标(它们冻结在 notes/ 里)。',
    `除了交接书什么都别做,也别调用别的工具。如果 ${HANDOFF_TOOL_NAME} 用不了,就直接用 markdown 回复,标题依次是:## 现在在做什么、## 已经定下的、## 走不通的路、## 下一步、## 现场。`,
  ].join('\n'),
  en: [
    'Your context has reached {used} of a {window} window and is nearly full. Stop the work in hand and write your handoff now: a new session with none of your memory takes over, with only this handoff and the disk.',
    '',
    `Submit it with the ${HANDOFF_TOOL_NAME} tool, in five parts:`,
    '1. doing: what you are doing now, in a sentence or two; how far you got.',
    '2. decided: the decisions already made, each with its why (without the why, the successor reopens them).',
    '3. deadends: the paths tried and ruled out, and why they fail. The most valuable part and the most often forgotten; if there are none yet, write "none yet" — never invent one.',
    '4. next: the next step, concrete enough to act on: "run X; if Y, change Z".',
    '5. scene: the paths of the key files, outputs and branches. Paths only, no content.',
    '',
    'Rules: self-contained (the successor cannot see this conversation); pointers, not content; do not restate the requirement or the goal (they are frozen in notes/).',
    `Do nothing else and call no other tool. If ${HANDOFF_TOOL_NAME} is unavailable, answer in markdown with the headings ## Doing now, ## Decided, ## Dead ends, ## Next step, ## Scene.`,
  ].join('\n'),
});

export function handoffPrompt(lang: Lang, used: number, window: number): string {
  return HANDOFF_PROMPT[lang].replace('{used}', formatTokens(used, { decimals: true })).replace('{window}', formatTokens(window));
}

const TOOL_TEXT: Readonly<Record<Lang, { describe: string; received: string; rejected: string }>> = {
  zh: {
    describe: '交交接书:现在在做什么、已经定下的(带为什么)、走不通的路、下一步、现场的路径。交了就结束,不要再在回复里贴全文。',
    received: '已收到交接书。到此为止,不用再做别的。',
    rejected: '没有收下,缺少或不合格的字段:',
  },
  en: {
    describe:
      'Submit the handoff: what is being done, what is decided (with why), dead ends, the next step, and paths to the scene. After submitting, stop; do not paste it into your reply.',
    received: 'Handoff received. That is all; nothing else to do.',
    rejected: 'Not received; missing or invalid fields:',
  },
};

/**
 * A fresh in-process MCP server with one tool, `submit_handoff`, for one writing round. `keep` gets
 * every valid submission (the last one wins); an invalid one is answered with what is missing, never
 * thrown, so the model can fix it in the same round.
 */
export async function handoffServer(lang: Lang, keep: (x: HandoffSubmission) => void): Promise<McpSdkServerConfigWithInstance> {
  const t = TOOL_TEXT[lang];
  // the tool's zod schema loads with the first writing round, not with every run (src/docs/schemas.ts)
  const { submitHandoffSchema, submitHandoffShape } = await import('../docs/schemas.js');
  return createSdkMcpServer({
    name: HANDOFF_SERVER,
    version: '1.0.0',
    // deferred tools sit behind tool search; the writing round must see this one at once
    alwaysLoad: true,
    tools: [
      tool(HANDOFF_TOOL_NAME, t.describe, submitHandoffShape, async (args) => {
        const parsed = submitHandoffSchema.safeParse(args);
        if (!parsed.success) {
          const lines = parsed.error.issues.map((i) => `- ${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`);
          return { content: [{ type: 'text', text: `${t.rejected}\n${lines.join('\n')}` }], isError: true };
        }
        keep(parsed.data);
        return { content: [{ type: 'text', text: t.received }] };
      }),
    ],
  });
}

/**
 * The handoff from a writing round: the structured submission when there is one, else the markdown
 * answer. Either may be incomplete; the caller degrades it then.
 */
export function handoffFrom(step: string, submitted: HandoffSubmission | null, text: string): Handoff {
  if (submitted) return handoffFromSubmission(submitted, { step });
  return Handoff.parse(text, { step });
}

/** A step name as a file name (defined by the state layer, which owns every file name). */
export { safeStepName };

const layoutOf = (where: RunLayout | string): RunLayout => (typeof where === 'string' ? RunLayout.of({ workspace: where }) : where);

/** `notes/交接-<safe step>.md` of a layout (a workspace path = its default layout; with --isolate, the external workbench's notes/). */
export function handoffFile(where: RunLayout | string, step: string): string {
  return layoutOf(where).handoff(step);
}

/**
 * Write `notes/交接-<safe step>.md`; an existing one first moves to
 * `notes/archive/交接/<safe>-<YYYYmmdd-HHMMSS>.md` (a suffix when that name is taken), so every
 * generation's handoff survives for the person reading the run afterwards.
 */
export function writeHandoffRecord(where: RunLayout | string, h: Handoff, now: Date = new Date()): { path: string; archived: string | null } {
  const layout = layoutOf(where);
  const file = layout.handoff(h.step);
  const safe = safeStepName(h.step);
  let archived: string | null = null;
  if (fs.existsSync(file)) {
    const dir = layout.handoffArchive;
    fs.mkdirSync(dir, { recursive: true });
    let target = path.join(dir, `${safe}-${stamp(now)}.md`);
    for (let i = 2; fs.existsSync(target); i++) target = path.join(dir, `${safe}-${stamp(now)}-${i}.md`);
    fs.renameSync(file, target);
    archived = target;
  }
  const w = h.write(file, { now });
  return { path: w.path, archived };
}

export interface StopContext {
  step: string;
  window: number;
  t: Thresholds;
}

export function generationsMessage(c: StopContext, retired: number): string {
  return (
    `handoff: step "${c.step}" retired ${retired} sessions without finishing. The threshold (${c.t.at} tokens of a ${c.window}-token window) ` +
    `is probably below this role's start-up floor (about ${STARTUP_FLOOR / 1000}k tokens for a coordinator), so each new session is full almost at once. ` +
    'Raise the window with --window N (or FLOWER_WINDOW), or run with --no-handoff.'
  );
}

export function degradedStreakMessage(c: StopContext, streak: number): string {
  return (
    `handoff: ${streak} degraded handoffs in a row in step "${c.step}" — the sessions overflow before they can write one ` +
    `(window ${c.window}, threshold ${c.t.at}, room ${c.t.room} tokens). The model probably has a smaller window than ${c.window}: ` +
    'set FLOWER_WINDOW or --window to the real one (or lower), or run with --no-handoff.'
  );
}

/** Every section, scene included (the original's `done` event left it out). */
export function sectionsOf(h: Handoff): Record<'doing' | 'decided' | 'deadends' | 'next' | 'scene', string> {
  return { doing: h.doing, decided: h.decided, deadends: h.deadends, next: h.next, scene: h.scene };
}

export type Emit = (kind: EventKind, text: string, payload: Record<string, unknown>) => void;

/** What Generations needs from the Runtime. */
export interface GenerationHost {
  readonly workspace: string;
  /** where 交接-<step>.md goes (its notes/: the workbench's); default: the workspace's default layout */
  readonly layout?: RunLayout;
  /**
   * write 交接-<step>.md at all (default true). A Runtime without a workbench says false: it leaves no
   * `.flower/notes/` behind; the handoff still reaches the successor's prompt and the handoff event.
   */
  readonly notes?: boolean;
  readonly lang: Lang;
  /** the resolved env: calibration is keyed by its ANTHROPIC_BASE_URL and model */
  readonly env: Readonly<Record<string, string>>;
  /** the Runtime's live policy; a real overflow lowers its window in place */
  readonly policy: HandoffPolicy;
  /** one attempt resuming `resume`, its cost already net of the session's earlier cost */
  attempt(spec: AgentSpec, prompt: string, resume: string): Promise<AttemptOutcome>;
  contextOf(sessionId: string): Promise<number>;
  warn(message: string): void;
}

export interface GenerationStep {
  spec: AgentSpec;
  step: string;
  /** the step's original prompt: a degraded handoff keeps its start as the scene */
  task: string;
  result: StepResult;
  emit: Emit;
}

export type HandoffRoute = 'threshold' | 'overflow';

/**
 * One step's generations. Made per step, so the "near" notice and the degraded streak never carry over
 * into the next step (without the reset the original handed off at once in step two).
 */
export class Generations {
  private warned = false;
  private writing = false;
  private degraded = 0;

  constructor(
    private readonly host: GenerationHost,
    private readonly s: GenerationStep,
  ) {}

  /** A successor starts: its "near" notice may come again. */
  next(): void {
    this.warned = false;
  }

  /**
   * Route A, at every main-thread message boundary: cut once the context reaches `at`. Never while the
   * handoff is being written (the first live run degraded both generations because the writing round
   * tripped the threshold), never without a session to ask.
   */
  due(context: number): InterruptCause | null {
    const p = this.host.policy;
    if (!p.enabled || !this.s.spec.handoff || this.writing) return null;
    const t = thresholds(p);
    if (!this.warned && context >= t.warnAt) {
      this.warned = true;
      this.s.emit('handoff', `context ${context} of ${p.window}: a handoff comes at ${t.at}`, { phase: 'near', context, window: p.window, at: t.at });
    }
    return context >= t.at && this.s.result.session_id ? 'handoff' : null;
  }

  /**
   * Which handoff a failed attempt calls for. Route B reads THIS attempt's errors only: in the "novel"
   * run 31 old "prompt is too long" errors in the step's list made 86 unrelated gateway failures at
   * 41K–56K read as overflows.
   */
  route(o: AttemptOutcome): HandoffRoute | null {
    if (!this.host.policy.enabled || !this.s.spec.handoff || !this.s.result.session_id) return null;
    if (o.interrupted === 'handoff') return 'threshold';
    // decided where the failure happened (failure.ts), never re-read from the text here
    if (!o.interrupted && o.failure?.kind === 'context-full') return 'overflow';
    return null;
  }

  /**
   * Get the handoff (threshold: the same session writes it; overflow: degraded at once, since that
   * session cannot take another round), record it, retire the session. Returns the handoff for the
   * successor, or null when a brake stopped the step (result.error says why).
   */
  async handOff(route: HandoffRoute, o: AttemptOutcome): Promise<Handoff | null> {
    const { result, step, task } = this.s;
    const outgoing = result.session_id!;
    const context = o.context || result.context || (await this.host.contextOf(outgoing));
    let h: Handoff;
    let why = '';
    if (route === 'overflow') {
      why = `context overflow: ${firstOverflow(o).slice(0, 160)}`;
      this.calibrate(o, context);
      h = Handoff.degraded(step, task, why);
    } else {
      const p = this.host.policy;
      this.s.emit('handoff', `context ${context}: writing a handoff`, { phase: 'writing', context, window: p.window, at: thresholds(p).at });
      this.writing = true;
      try {
        ({ h, why } = await this.writeRound(outgoing, context));
      } catch (e) {
        why = `the handoff round failed: ${errorText(e)}`;
        h = Handoff.degraded(step, task, why);
      } finally {
        this.writing = false;
      }
    }
    let file: string | null = null;
    try {
      if (this.host.notes ?? true) file = writeHandoffRecord(this.host.layout ?? this.host.workspace, h, new Date()).path;
    } catch (e) {
      // the successor still gets the document through its prompt
      this.host.warn(`could not write the handoff of step "${step}": ${errorText(e)}`);
    }
    if (h.isDegraded) {
      this.degraded++;
      result.errors.push(`交接降级(${why})`);
    } else this.degraded = 0;
    const p = this.host.policy;
    const t = thresholds(p);
    this.s.emit('handoff', `${h.isDegraded ? 'degraded handoff' : 'handoff'} written${file ? `: ${file}` : ''}`, {
      phase: 'done',
      context,
      window: p.window,
      at: t.at,
      degraded: h.isDegraded,
      path: file,
      sections: sectionsOf(h),
    });
    const stop = { step, window: p.window, t };
    if (result.retired.length >= p.maxGenerations) return halt(result, generationsMessage(stop, result.retired.length));
    result.retired.push(outgoing);
    if (this.degraded >= MAX_DEGRADED_STREAK) return halt(result, degradedStreakMessage(stop, this.degraded));
    return h;
  }

  /**
   * The outgoing session writes its own handoff: same session (resume, no fork, no resumeAt), no budget
   * cap (a budget must never block the handoff), no events, no threshold (`writing`). A
   * `submit_handoff` call wins; the markdown answer is the fallback; anything incomplete degrades.
   */
  private async writeRound(sid: string, context: number): Promise<{ h: Handoff; why: string }> {
    const { spec: base, step, task, result } = this.s;
    let submitted: HandoffSubmission | null = null;
    const o = base.toOptions();
    delete o.maxBudgetUsd;
    const spec = new AgentSpec({
      ...o,
      mcpServers: {
        ...base.mcpServers,
        [HANDOFF_SERVER]: await handoffServer(this.host.lang, (x) => {
          submitted = x;
        }),
      },
      allowedTools: [...base.allowedTools, HANDOFF_TOOL],
    });
    const out = await this.host.attempt(spec, handoffPrompt(this.host.lang, context, this.host.policy.window), sid);
    result.cost_usd += out.costUsd;
    result.num_turns += out.numTurns;
    if (out.failure?.kind === 'context-full' && !out.interrupted) this.calibrate(out, context);
    const h = handoffFrom(step, submitted, out.text);
    if (h.complete()) return { h, why: '' };
    const why = !out.ok
      ? `the handoff round failed: ${(out.error ?? 'unknown error').slice(0, 160)}`
      : `the handoff was incomplete, missing ${h.missing().join(', ')}`;
    return { h: Handoff.degraded(step, task, why), why };
  }

  /**
   * A real overflow: record the context reached for later runs AND lower the live window at once. The
   * original only used it next run, so the successor kept the wrong window, overflowed again, and
   * that second degraded handoff stopped the step. A limit stated in the error beats the last reading.
   */
  private calibrate(o: AttemptOutcome, context: number): void {
    const reached = statedLimit([o.error ?? '', ...o.errors].join('\n')) ?? context;
    // an overflow below any real window is a broken reading (window.ts), never a window to live by
    if (!plausibleWindow(reached)) return;
    rememberOverflow(this.host.env, this.s.spec.model ?? configuredModel(this.host.env), reached);
    if (reached < this.host.policy.window) this.host.policy.window = reached;
  }
}

function halt(result: StepResult, why: string): null {
  result.ok = false;
  result.error = why;
  result.errors.push(why);
  return null;
}

function firstOverflow(o: AttemptOutcome): string {
  return [o.error, ...o.errors].find((t) => isOverflow(t)) ?? o.error ?? '';
}
