// Requests shaped like the ones flower's roles send (what src/sim/fuzz reads of them), for the fuzzing
// model's tests. Only the parts the model looks at are reproduced.
import { toSimCall, type SimCall } from '../../src/sim/index.js';

export const WS = '/tmp/fuzz-ws';
const SUBMITS = ['mcp__human__ask', 'mcp__human__submit_brief', 'mcp__human__submit_goal', 'mcp__human__submit_verdict'];
const READS = ['Glob', 'Grep', 'Read', ...SUBMITS];
const env = (ws: string): string => `# Environment\n - Primary working directory: ${ws}\n - Platform: linux`;
const AGENTS =
  'Available agent types for the Agent tool:\n- claude: catch-all (Tools: *)\n- Explore: read-only search (Tools: All tools except Agent)\n- worker: hands-on worker: writes code, runs commands, edits files (Tools: Read, Write, Edit, Bash, Glob, Grep)\n\nWhen you launch multiple agents…';

export const GOAL_BLOCK =
  '## 目标\nmd2html.mjs converts markdown\n\n## 判定清单\n- md2html.mjs exists in the workspace\n- sample.html, made by node md2html.mjs sample.md, has <h1> for the "# " heading\n- sample.html has <li> for the list lines';

export const PROMPTS = {
  clarify:
    'The request: write a markdown-to-html script\n\nPin the requirement down, then submit the four-section brief (goal / acceptance criteria / boundaries / unknowns and assumptions) with submit_brief.',
  goal: 'Turn this brief into a decidable goal and submit it with submit_goal: a one-sentence goal plus a checklist.\n\n## 目标\nwrite a markdown-to-html script — as md2html.mjs in the workspace\n\n## 验收标准\n- run node md2html.mjs sample.md',
  coordinator: `<workbench>\nroot: ${WS}/.flower\n- notes/目标.md (91 B)\n</workbench>\n\n## 目标\nwrite a markdown-to-html script\n\n---\nThis is what done means:\n\n${GOAL_BLOCK}`,
  worker: `Task: write a markdown-to-html script\nWorkspace: ${WS}\nArtifact: ${WS}/md2html.mjs\nMake ${WS}/md2html.mjs, run or read it to check it, and report.`,
  judge: `${GOAL_BLOCK}\n\n---\nThe worker's reply this round:\nDone.\n\n---\nCheck the checklist item by item. Submit the verdict with submit_verdict.`,
};

export type Role = keyof typeof PROMPTS | 'handoff';

export interface CallOptions {
  /** Assistant turns and tool results after the first prompt. */
  messages?: unknown[];
  stream?: boolean;
  retry?: number;
  ws?: string;
  n?: number;
}

/** A request of `role`'s session, its first prompt, then `messages`. */
export function callOf(role: Role, o: CallOptions = {}): SimCall {
  const ws = o.ws ?? WS;
  const subagent = role === 'worker';
  const tools =
    role === 'worker'
      ? ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']
      : role === 'coordinator' || role === 'handoff'
        ? ['Agent', 'Bash', 'Read', 'Write', ...SUBMITS, ...(role === 'handoff' ? ['mcp__flower_handoff__submit_handoff'] : [])]
        : READS;
  const first = role === 'handoff' ? PROMPTS.coordinator : PROMPTS[role].replaceAll(WS, ws);
  const messages: unknown[] = [
    { role: 'user', content: [{ type: 'text', text: first }] },
    { role: 'system', content: `${env(ws)}\n\n${role === 'coordinator' || role === 'handoff' ? AGENTS : ''}` },
    ...(o.messages ?? []),
  ];
  if (role === 'handoff') messages.push({ role: 'user', content: 'Your context is nearly full. Submit it with the submit_handoff tool, in five parts.' });
  const body = {
    model: 'claude-test',
    max_tokens: 1000,
    stream: o.stream ?? true,
    system: [
      { type: 'text', text: `x-anthropic-billing-header: cc_version=1;${subagent ? ' cc_is_subagent=true;' : ''}` },
      { type: 'text', text: 'You are a test agent.' },
    ],
    tools: tools.map((name) => ({ name, input_schema: { type: 'object' } })),
    messages,
  };
  return toSimCall(o.n ?? 1, body, JSON.stringify(body), { 'x-stainless-retry-count': String(o.retry ?? 0) });
}

let ids = 0;
/** The messages of one tool round: the assistant's calls, then their results. */
export function round(calls: Array<{ name: string; input: Record<string, unknown> }>, results: Array<string | { text: string; error: true }>): unknown[] {
  const made = calls.map((c) => ({ type: 'tool_use', id: `toolu_t${++ids}`, name: c.name, input: c.input }));
  return [
    { role: 'assistant', content: made },
    {
      role: 'user',
      content: made.map((m, i) => {
        const r = results[i] ?? 'ok';
        return { type: 'tool_result', tool_use_id: m.id, content: typeof r === 'string' ? r : r.text, ...(typeof r === 'string' ? {} : { is_error: true }) };
      }),
    },
  ];
}

/** The same JSON with the random ids the sim fills in (msg_, toolu_, sig_) blanked. */
export const withoutIds = (v: unknown): string => JSON.stringify(v).replace(/\b(msg|toolu|sig|req)_[0-9a-f]{24}\b/g, '$1_*');
