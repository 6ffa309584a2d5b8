/**
 * starterFlow — what `flower "…"` runs: 确认需求 → 设定目标 → 干活 (judged every round).
 *
 * Waking: in a folder whose brief is complete, the sentence typed is a remark on the same task, not a
 * new task, and it must land in three places or it silently fails — appended to 需求.md, the goal
 * re-derived (the judge reads only 目标.md), and the work step's resume prompt with the new checklist
 * as authoritative. A silent wake re-derives nothing and costs nothing extra.
 */
import type { AgentDefinition } from '@anthropic-ai/claude-agent-sdk';
import { detectLang, type Lang } from '../../config/index.js';
import { ConfigError } from '../../errors.js';
import { Brief, type Goal, WAKE_AMEND_LABEL } from '../../docs/index.js';
import { requireGitRepo } from '../../guards/index.js';
import { HumanChannel } from '../../human/index.js';
import { clarifier, coordinator, judge, worker } from '../../roles/index.js';
import type { WorkflowContext } from '../context.js';
import { RunLayout, SEED_STEPS, type RunRecords } from '../../state/index.js';
import { Lineage } from '../lineage.js';
import { Step } from '../step.js';
import { wakeState } from '../wake.js';
import { Workflow } from '../workflow.js';
import { texts } from './prompts.js';
import { clarifyStep, goalStep, GOAL_KEY, type FlowChannel } from './steps.js';
import { withGoal } from './judge.js';

export interface StarterOptions {
  workspace: string;
  /** relative to the current directory (default 'runs') */
  runDir?: string;
  /**
   * the human channel every step shares (its MCP server must offer submit_brief/goal/verdict); by
   * default a HumanChannel with `timeoutS` / `maxAsks`, logging to 问答记录.md and amending 需求.md —
   * answer it through `flow.channel`
   */
  channel?: FlowChannel;
  /** for the default channel: how long a question waits for an answer (default 1800 s; ≤ 0 = never waits) */
  timeoutS?: number;
  /** for the default channel: how many questions the agents may ask (default unlimited) */
  maxAsks?: number | null;
  /** archive lineage, 需求.md and 目标.md first (`--new`) */
  fresh?: boolean;
  clarifyOnly?: boolean;
  /** set a goal and judge the work (default true; `--no-goal` turns both off) */
  goal?: boolean;
  rounds?: number;
  judgeCanRun?: boolean;
  /** extra rules for the coordinator */
  instructions?: string;
  workers?: Record<string, AgentDefinition>;
  /**
   * each worker in its own git worktree (`--isolate`); the workspace must be inside a git work tree, or
   * starterFlow rejects with ConfigError 'not-a-git-repo' before anything is made (the CLI's check)
   */
  isolate?: boolean;
  /**
   * every path (default: from workspace / runDir / isolate). Its notes/ holds the brief and the goal:
   * `<workspace>/.flower/notes`, or with --isolate the external workbench's.
   */
  layout?: RunLayout;
  /** lineage's records (default: the files in the run dir) */
  records?: RunRecords;
  lang?: Lang;
}

export interface StarterFlow {
  workflow: Workflow;
  /** the channel the steps ask through (the one given, or the default) */
  channel: FlowChannel;
  /** the folder had a complete brief: this run continues it */
  waking: boolean;
  /** the remark was appended to 需求.md (the goal is then re-derived) */
  amended: boolean;
  /** archive folder when `fresh` moved something */
  archived: string | null;
  layout: RunLayout;
  briefPath: string;
  goalPath: string;
  notesDir: string;
}

export async function starterFlow(ask: string, o: StarterOptions): Promise<StarterFlow> {
  const lang = o.lang ?? detectLang();
  const layout = o.layout ?? RunLayout.of({ workspace: o.workspace, ...(o.runDir !== undefined ? { runDir: o.runDir } : {}), isolate: o.isolate ?? false });
  const ws = layout.workspace;
  // refused before anything is archived, recorded or asked: worktrees need a git repository
  if (o.isolate) requireGitRepo(ws);
  const records = o.records ?? layout.runDir;
  const { brief: briefPath, goal: goalPath, notes } = layout;
  let archived: string | null = null;
  if (o.fresh) archived = await (await Lineage.open(records, ws)).archive(layout.archive, [briefPath, goalPath]);

  const remark = ask.trim();
  const state = await wakeState(ws, { layout, ...(o.records ? { records: o.records } : {}) });
  const waking = state.waking;
  // a bare wake of a run cut short during clarification continues it (its session, or its request)
  if (!waking && !remark && !state.unfinished) throw new ConfigError('nothing-to-do', 'nothing to do: give flower a request (one sentence is enough)');
  const amended = waking && remark ? amendBrief(briefPath, remark) : false;

  const ch: FlowChannel = o.channel ?? defaultChannel(o, lang, layout);
  // when waking, the original request lives in the frozen brief; the sentence is only a remark
  // a new task's sentence is recorded before any spawn; a bare wake of a cut-short run starts from it
  if (!waking && remark && state.request !== remark) await (await Lineage.open(records, ws)).recordRequest(remark);
  const request = waking ? (state.brief?.goal ?? remark) : remark || state.request || '';
  const steps: Step[] = [clarifyOf(request, ch, briefPath, lang)];
  if (!o.clarifyOnly) {
    const useGoal = o.goal ?? true;
    if (useGoal) steps.push(goalStep(judge(SEED_STEPS.goal, { channel: ch, lang, submits: ['goal'] }), ch, { goalPath, alwaysSet: amended, lang }));
    steps.push(workStep(o, { ch, lang, layout, remark, amended, useGoal }));
  }
  return { workflow: new Workflow(steps, { name: 'starter' }), channel: ch, waking, amended, archived, layout, briefPath, goalPath, notesDir: notes };
}

// ---- the pieces of the flow ----

/** The waking remark appended to 需求.md; false when it was not (then the goal is not re-derived). */
function amendBrief(briefPath: string, remark: string): boolean {
  try {
    return Brief.amend(briefPath, remark, { label: WAKE_AMEND_LABEL });
  } catch {
    return false; // a damaged brief must not stop the run; the remark still reaches the work prompt
  }
}

/** The channel when none is given: questions wait `timeoutS`, logged to 问答记录.md, answers amend 需求.md. */
function defaultChannel(o: StarterOptions, lang: Lang, layout: RunLayout): FlowChannel {
  return new HumanChannel({
    timeoutS: o.timeoutS ?? 1800,
    maxAsks: o.maxAsks ?? null,
    lang,
    logPath: layout.qa,
    amendPath: layout.brief,
  }).withSubmissions(['brief', 'goal', 'verdict']);
}

/** 确认需求: the clarifier, from the request (or, on a wake, from its own session). */
function clarifyOf(request: string, ch: FlowChannel, briefPath: string, lang: Lang): Step {
  return clarifyStep(
    clarifier(SEED_STEPS.clarify, { channel: ch, lang }),
    ch,
    () => {
      // only reached when the clarify session cannot be resumed (it never reached the store) and no
      // request is known: there is nothing to clarify from
      if (!request.trim())
        throw new ConfigError(
          'nothing-to-do',
          'nothing to do: the interrupted run left no request to continue; give flower a request (one sentence is enough)',
        );
      return request;
    },
    { briefPath, lang },
  );
}

interface WorkContext {
  ch: FlowChannel;
  lang: Lang;
  layout: RunLayout;
  /** the sentence typed (on a wake, a remark on the same task) */
  remark: string;
  /** the remark reached 需求.md, so the goal was re-derived and its checklist is new */
  amended: boolean;
  useGoal: boolean;
}

/**
 * 干活: the coordinator and its workers, judged every round when there is a goal. On resume its prompt is
 * the remark (and the new checklist, which is then authoritative), or a silent wake's few words.
 */
function workStep(o: StarterOptions, w: WorkContext): Step {
  const { ch, lang, remark, amended, useGoal } = w;
  const t = texts(lang);
  const workers = o.workers ?? {
    worker: worker(lang === 'zh' ? '动手干活的人:写代码、跑命令、改文件' : 'hands-on worker: writes code, runs commands, edits files', '', {
      isolate: o.isolate ?? false,
      lang,
    }),
  };
  const coord = coordinator(SEED_STEPS.work, o.instructions ?? '', workers, { channel: ch, lang });
  const workPrompt = (ctx: WorkflowContext) =>
    t.workPrompt(String(ctx[SEED_STEPS.clarify] ?? t.noBrief), useGoal ? String(ctx[SEED_STEPS.goal] ?? t.noGoal) : '');
  const resumePrompt = (ctx: WorkflowContext) => {
    if (!remark) return t.wakeSilent;
    const goal = ctx[GOAL_KEY] as Goal | undefined;
    const parts = [t.wakeRemark(remark)];
    if (amended && goal?.complete()) parts.push(t.newChecklist(goal.promptBlock()));
    return parts.join('\n\n');
  };
  const work = new Step(SEED_STEPS.work, coord, workPrompt, { resumePrompt });
  if (!useGoal) return work;
  return withGoal(work, judge('干活·判定', { channel: ch, canRun: o.judgeCanRun ?? false, lang, submits: ['verdict'] }), ch, {
    goalPath: w.layout.goal,
    briefPath: w.layout.brief,
    manifestPath: w.layout.manifest,
    rounds: o.rounds ?? 3,
    lang,
  });
}
