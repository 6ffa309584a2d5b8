/**
 * How a run ends on screen, the same for `flower` and `flower run`: the last verdict (outcome and pass
 * count, from the judge's manifest row), the total cost and the manifest's path (whole, never cut),
 * and — when a step failed — exactly one stderr line naming the step, the reason and what to do next;
 * then the hand-over block for the next tool in CLAUDE.md / AGENTS.md (src/cli/bequest.ts) and the run's
 * last notifications (src/cli/notify.ts).
 */
import type { Runtime } from '../runtime/index.js';
import type { WorkflowContext } from '../workflow/index.js';
import { leaveBequest, type HandOver } from './bequest.js';
import { EXIT, type CliIO } from './io.js';
import type { RunNotices } from './notify.js';
import type { Renderer } from './render.js';
import { clipWords } from './screen/refusal.js';
import { hangingLines } from './screen/wrap.js';
import { sanitize, width } from './term.js';

export async function closing(
  ui: Renderer,
  io: CliIO,
  rt: Runtime,
  ctx: WorkflowContext,
  continueCmd: string,
  notices?: RunNotices | null,
  handOver?: HandOver | null,
): Promise<number> {
  const code = closingLines(ui, io, rt, ctx, continueCmd);
  // a warning at most: the exit code stays the run's
  if (handOver) await leaveBequest(handOver, ui, rt, ctx);
  // after the last line: the person sees how it ended at once, the deliveries get at most their retry budget
  await notices?.end(ctx, continueCmd).catch(() => {});
  return code;
}

function closingLines(ui: Renderer, io: CliIO, rt: Runtime, ctx: WorkflowContext, continueCmd: string): number {
  const judged = rt.manifest
    .own()
    .filter((r) => r.verdict)
    .at(-1);
  if (judged?.verdict) {
    const v = judged.verdict;
    ui.closingVerdict({
      outcome: v.outcome,
      passed: v.passed,
      total: v.total,
      cost_usd: judged.cost_usd,
      num_turns: judged.num_turns,
      duration_s: judged.duration_s,
    });
  }
  ui.line('');
  ui.whole('hint', ui.t.total(ui.cost(rt.totalCost()), rt.manifest.path));
  // a stop the person asked for is not a failure: the next run continues from there
  if (ctx._stoppedAfter) ui.line(ui.t.stoppedAfter(ctx._stoppedAfter, continueCmd));
  if (!ctx._failedAt) return EXIT.ok;
  const step = ctx._failedAt;
  const why = ctx._aborted ?? ctx._results[step]?.error ?? ui.s.stepRejected;
  // the step as the manifest and `flower log` name it: what a person greps for
  const line = ctx._limit ? ui.s.limitStop(step, ctx._limit.message) : failedLine(ui, step, why, continueCmd);
  // a narrow screen gets it wrapped between words, under a hanging indent
  const lines = ctx._limit ? [line] : hangingLines(sanitize(line, { keepColour: false }), ui.wrapAt, 2);
  try {
    io.stderr.write(`${lines.map((l) => sanitize(l, { keepColour: false })).join('\n')}\n`);
  } catch {
    /* closed */
  }
  return EXIT.failure;
}

/** How many screen lines a failure's reason may take before it is clipped (the rest is in `flower log`). */
const WHY_LINES = 4;

/**
 * The one failure line, within a few lines of the screen's width (a terminal's, or COLUMNS; a plain pipe
 * or log keeps it whole): a reason that tells the person what to do (`run flower setup`) is short and
 * stays whole, wrapped; only a long one (a wall of API text) is clipped between words, with where the
 * rest is — the whole reason is in the manifest row and `flower log`.
 */
function failedLine(ui: Renderer, step: string, why: string, continueCmd: string): string {
  const next = ui.s.continueHint(continueCmd);
  const whole = ui.s.failedStep(step, why.replace(/\s+/g, ' ').trim(), next);
  const cols = ui.wrapAt;
  if (!cols || width(whole) <= cols * WHY_LINES - 2 * (WHY_LINES - 1)) return whole;
  const room = cols * WHY_LINES - 2 * (WHY_LINES - 1) - width(ui.s.failedStep(step, '', next));
  const pointer = ` ${ui.s.seeLog}`;
  if (room - width(pointer) >= 20) return ui.s.failedStep(step, `${clipWords(why, room - width(pointer))}${pointer}`, next);
  // no room on one line (a narrow screen): a short reason all the same, and the line wraps
  return ui.s.failedStep(step, clipWords(why, Math.max(24, room)), next);
}
