/**
 * The seed's step names — what the starter flow calls its steps on disk (manifest rows, lineage,
 * handoff file names) — and how a person reads them. The names stay Chinese in every file; on a
 * screen in English they are translated with the seed's name kept beside the translation, because
 * the files, the manifest and `flower log --json` call the step by it and a person greps for it.
 * Pure; a low layer so the starter flow, the CLI and the web UI share one table.
 */

/** The starter flow's steps (and the side question's), as they are named on disk. */
export const SEED_STEPS = { clarify: '确认需求', goal: '设定目标', work: '干活', aside: '旁路问答' } as const;

/** What marks a judge's turn of a step: `<step>·判定#N`. */
export const JUDGE_MARK = '·判定';

/** The judge's N-th turn of `step`, as the manifest names it (`干活·判定#1`). */
export const judgeStepName = (step: string, n: number): string => `${step}${JUDGE_MARK}#${n}`;

const EN: Readonly<Record<string, string>> = {
  [SEED_STEPS.clarify]: 'clarify',
  [SEED_STEPS.goal]: 'set the goal',
  [SEED_STEPS.work]: 'work',
  [SEED_STEPS.aside]: 'aside',
};

// `X`, `X#round2` / `X#retry1` (src/workflow/step.ts), `X·判定#N` (the judge), in either order
const PARTS = /^(.+?)((?:·判定(?:#\d+)?|#(?:round|retry)?\d+)*)$/u;
const SUFFIX = /·判定(?:#(\d+))?|#(round|retry)?(\d+)/gu;

/**
 * A step name for a person: in Chinese as it is; in English the seed's names are translated and the
 * name itself follows in brackets (`干活·判定#2` → `work · judge #2 (干活·判定#2)`, `干活#round2` →
 * `work round 2 (干活#round2)`). A workflow's own step names are shown as they are (`review` stays
 * `review`); only a judge's turn of one is translated (`review·判定#1` → `review · judge #1 (review·判定#1)`).
 */
export function stepLabel(name: string, lang: 'en' | 'zh'): string {
  if (lang === 'zh') return name;
  const m = PARTS.exec(name);
  if (!m) return name;
  const base = m[1]!;
  const suffix = m[2] ?? '';
  const seed = EN[base];
  if (seed === undefined && !suffix.includes(JUDGE_MARK)) return name;
  let shown = seed ?? base;
  for (const s of suffix.matchAll(SUFFIX)) {
    if (s[0].startsWith(JUDGE_MARK)) shown += ` · judge${s[1] ? ` #${s[1]}` : ''}`;
    else shown += s[2] ? ` ${s[2]} ${s[3]}` : ` #${s[3]}`;
  }
  return `${shown} (${name})`;
}
