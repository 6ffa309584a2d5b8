/**
 * Structured submissions: the documents as schema-checked tool inputs (submit_brief, submit_goal,
 * submit_verdict, submit_handoff), so a model fills fields instead of writing markdown we must
 * guess headings in. Markdown parsing stays as the fallback. The raw shapes are exported because
 * the Agent SDK's `tool(name, description, shape, handler)` takes a zod raw shape.
 *
 * Not re-exported by src/docs/index.ts: zod takes ~45 ms to load (95 modules), and only the code that
 * builds a submission tool server needs it (src/human/submissions.ts; the Runtime's handoff round loads
 * this file when it starts one). What a submission becomes is in src/docs/submitted.ts, without zod.
 */
import { z } from 'zod';

const line = (what: string) => z.string().trim().min(1, `${what} must not be empty`);
const lines = (what: string, describe: string) => z.array(line(what)).min(1, `give at least one ${what}`).describe(describe);

export const submitBriefShape = {
  goal: line('goal').describe('一句话:做什么、给谁用。'),
  acceptance: lines('acceptance criterion', '验收标准,每条一行、可判定:"运行 x,得到 y"。'),
  boundaries: lines('boundary', '边界:明确不做的事,以及怎么干活的规矩(不是交付物的属性)。'),
  unknowns: lines('unknown or assumption', '未知与假设,每条一行:没问到的、没人回答的、自己猜的。真的没有就写一条说明为什么没有。'),
};
export const submitBriefSchema = z.object(submitBriefShape);
export type BriefSubmission = z.infer<typeof submitBriefSchema>;

export const submitGoalShape = {
  statement: line('statement').describe('一句话:"做完了"是什么样子。'),
  checks: z
    .array(
      z.object({
        text: line('check').describe('一条可以当场运行并观察的判定项。'),
        unverifiable_reason: z.string().trim().min(1).optional().describe('只有这条在此环境里原理上验证不了时才填:为什么验证不了。'),
      }),
    )
    .min(1, 'give at least one check')
    .describe('判定清单。条数跟着"可能失败的方式"走,边界不是判定项。'),
};
export const submitGoalSchema = z.object(submitGoalShape);
export type GoalSubmission = z.infer<typeof submitGoalSchema>;

export const submitVerdictShape = {
  state: z.enum(['achieved', 'not_yet', 'unreachable']).describe('achieved=达成;not_yet=未达成;unreachable=无法达成(含此环境无法验证)。说不准不等于达成。'),
  reason: z.string().trim().describe('差在哪里(不给修法)。达成时可以为空。'),
  checks: z
    .array(
      z.object({
        item: line('item').describe('判定清单里的那一条。'),
        pass: z.boolean().nullable().describe('true=看到了通过的证据;false=没通过;null=判断不了(按没通过算)。'),
        evidence: z.string().trim().describe('看到的证据:跑了什么、得到什么。没有证据就算没通过。'),
      }),
    )
    .describe('逐条判定,每条带证据。'),
};
export const submitVerdictSchema = z.object(submitVerdictShape);
export type VerdictSubmission = z.infer<typeof submitVerdictSchema>;

export const submitHandoffShape = {
  doing: line('doing').describe('现在在做什么:一两句,接手的人先知道自己站在哪。'),
  decided: z.string().trim().describe('已经定下的:每条带上为什么。'),
  deadends: z.string().trim().describe('走不通的路:试过并排除的路,以及为什么不行。真的没有就留空,别编。'),
  next: line('next').describe('下一步:具体到能直接动手,"跑 X,如果 Y 就改 Z"。'),
  scene: z.string().trim().describe('现场:关键文件、产出物、分支的路径。指针,不是内容。'),
};
export const submitHandoffSchema = z.object(submitHandoffShape);
export type HandoffSubmission = z.infer<typeof submitHandoffSchema>;
