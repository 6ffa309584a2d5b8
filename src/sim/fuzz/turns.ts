/**
 * The plausible turn for each role: what a well-behaved model would answer to this request, computed
 * from the request alone (what it was asked, what it already called, what its tools returned). Faults
 * (faults.ts) are built on top of it, so a faulty answer still looks like the turn it spoils.
 */
import path from 'node:path';
import type { SimCall, SimToolCall } from '../items.js';
import {
  artifactFor,
  briefFor,
  briefMarkdown,
  goalFor,
  goalMarkdown,
  handoffFor,
  handoffMarkdown,
  listingLines,
  MD2HTML_SCRIPT,
  profileOf,
  SAMPLE_MD,
  verdictMarkdown,
  type VerdictCheck,
  type VerdictInput,
} from './docs.js';
import {
  callsOf,
  checklistOf,
  declaredAgents,
  endsWithToolResult,
  filesNamedIn,
  promptCount,
  submitTool,
  turnCalls,
  turnPrompt,
  workspaceOf,
  type SeenCall,
} from './read.js';
import type { FuzzRole } from './options.js';
import type { Draw } from './rng.js';

/** A turn before any fault: a text answer, or tool calls (with an optional preamble). */
export interface Plan {
  text?: string;
  calls: SimToolCall[];
  /** What this turn does, for traces: `submit_brief`, `Write md2html.mjs`, `report`, … */
  what: string;
}

export interface TurnContext {
  call: SimCall;
  role: FuzzRole;
  /** The workspace (the harness's "Primary working directory"; the cwd-free fallback `.`). */
  ws: string;
  all: SeenCall[];
  turn: SeenCall[];
  /** Draws that stay the same for a whole conversation (its way of working, not its faults). */
  pick: Draw;
  /** The artifact the options name, overriding what the prompts say. */
  artifact?: string;
}

export function turnContext(call: SimCall, role: FuzzRole, pick: Draw, artifact?: string): TurnContext {
  return { call, role, ws: workspaceOf(call) ?? '.', all: callsOf(call), turn: turnCalls(call), pick, ...(artifact ? { artifact } : {}) };
}

const say = (text: string, what = 'answer'): Plan => ({ text, calls: [], what });
const use = (name: string, input: Record<string, unknown>, what: string = name): Plan => ({ calls: [{ name, input }], what });
/** The first line of a tool result that is content (a Read's line numbers and the harness's reminders left out). */
const firstLine = (s: string): string =>
  s
    .split('\n')
    .map((l) => l.replace(/^\s*\d+\t/, '').trim())
    .find((l) => l !== '' && !/^<\/?system-reminder/.test(l)) ?? '';
const clip = (s: string, n = 80): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The request in one line: the ask, the task, or the brief's goal, whichever the prompt carries. */
export function taskOf(text: string): string {
  const m = /(?:The request: |要做的事:|Task: )(.+)/.exec(text) ?? /^#{1,3}\s*(?:目标|Goal)\s*\n+([^\n#].*)/m.exec(text);
  return (m?.[1] ?? text.split('\n').find((l) => l.trim() !== '' && !l.startsWith('<')) ?? 'the task').trim();
}

function artifactOf(ctx: TurnContext): string {
  if (ctx.artifact) return ctx.artifact;
  const text = ctx.call.firstUser;
  const marked = /^Artifact: (\S+)/m.exec(text)?.[1];
  if (marked) return path.basename(marked);
  const named = [...filesNamedIn(checklistOf(text).join('\n')), ...filesNamedIn(taskOf(text)), ...filesNamedIn(text)];
  return artifactFor(taskOf(text), named);
}

/** Submit a document once; the tool's acceptance ends the turn, a rejection is answered with a fixed one. */
function submit(ctx: TurnContext, kind: 'brief' | 'goal' | 'verdict' | 'handoff', input: object, markdown: string): Plan {
  const tool = submitTool(ctx.call, kind);
  if (!tool) return say(markdown, `${kind} as markdown`);
  const last = [...ctx.turn].reverse().find((c) => c.name === tool);
  if (last?.result && !last.result.isError && endsWithToolResult(ctx.call)) return say(`Submitted the ${kind}.`, 'done');
  return use(tool, input as Record<string, unknown>, `submit_${kind}`);
}

function clarify(ctx: TurnContext): Plan {
  const task = taskOf(ctx.call.firstUser);
  const brief = briefFor(task, artifactOf(ctx));
  const opening = ctx.pick.pick(['submit', 'look', 'ask'] as const);
  if (ctx.turn.length === 0 && opening === 'look') return use('Glob', { pattern: '*', path: ctx.ws }, 'look around');
  const ask = ctx.call.tools.find((t) => t.endsWith('__ask'));
  if (ctx.turn.length === 0 && opening === 'ask' && ask) {
    return use(ask, { question: 'Where should the output go?', options: ['stdout', 'a file next to the input'] }, 'ask');
  }
  return submit(ctx, 'brief', brief, briefMarkdown(brief));
}

function goal(ctx: TurnContext): Plan {
  const g = goalFor(taskOf(ctx.call.firstUser), artifactOf(ctx));
  return submit(ctx, 'goal', g, goalMarkdown(g));
}

/** Dispatch every declared worker type once per turn, in listed order, each told what the last found. */
function coordinate(ctx: TurnContext): Plan {
  const types = declaredAgents(ctx.call);
  const team = types.length > 0 ? types : [{ name: 'general-purpose', tools: ['*'] }];
  const dispatched = ctx.turn.filter((c) => c.name === 'Agent' && c.result);
  // a dispatch the harness refused (bad input, unknown type) is made again, a few times at most
  const reports = dispatched.filter((c) => !c.result!.isError);
  const artifact = path.join(ctx.ws, artifactOf(ctx));
  const lastReport = reports.at(-1)?.result?.text ?? '';
  // a later round passes the feedback it got on, and says which attempt it is — so its workers' and
  // its judge's prompts differ from the last round's, as they would with a real model
  const attempt = promptCount(ctx.call);
  const again = attempt > 1 ? [`This is attempt ${attempt}; the feedback on the last one: ${clip(turnPrompt(ctx.call).replace(/\s+/g, ' '), 300)}`] : [];
  if (reports.length >= team.length || dispatched.length - reports.length >= 3) {
    const conclusion = /Conclusion: (.*)/.exec(lastReport)?.[1] ?? clip(firstLine(lastReport));
    return say(
      `Done${attempt > 1 ? ` (attempt ${attempt})` : ''}: ${artifact} is in the workspace.\nEvidence: the worker reports: ${conclusion}\nOutputs: ${artifact}\nUnverified: none`,
      'report',
    );
  }
  const next = team[reports.length]!;
  const reads = !next.tools.includes('*') && !next.tools.includes('Write');
  const task = taskOf(ctx.call.firstUser);
  const prompt = [
    `Task: ${task}`,
    `Workspace: ${ctx.ws}`,
    `Artifact: ${artifact}`,
    reads
      ? 'List what is in the workspace and report the files with their paths; change nothing.'
      : `Make ${artifact}, run or read it to check it, and report.`,
    ...(lastReport ? [`What the previous worker found: ${clip(lastReport.replace(/\s+/g, ' '), 400)}`] : []),
    ...again,
  ].join('\n');
  return use(
    'Agent',
    { description: `${reads ? 'survey' : 'make'} ${path.basename(artifact)}`, subagent_type: next.name, prompt, run_in_background: false },
    `dispatch ${next.name}`,
  );
}

interface WorkStep {
  call: SimToolCall;
  done: (c: SeenCall) => boolean;
}

const bashStep = (command: string, description: string): WorkStep => ({
  call: { name: 'Bash', input: { command, description } },
  done: (c) => c.name === 'Bash' && c.input.command === command,
});

function writeStep(file: string, content: string, via: 'Write' | 'Bash'): WorkStep {
  const call: SimToolCall =
    via === 'Write'
      ? { name: 'Write', input: { file_path: file, content } }
      : { name: 'Bash', input: { command: `cat > '${file}' <<'FUZZ_EOF'\n${content}FUZZ_EOF`, description: `write ${path.basename(file)}` } };
  return {
    call,
    done: (c) => (c.name === 'Write' && c.input.file_path === file) || (c.name === 'Bash' && String(c.input.command ?? '').startsWith(`cat > '${file}'`)),
  };
}

/** The steps that make the artifact, by profile; a listing needs the `ls` result first. */
function recipe(ctx: TurnContext, file: string, via: 'Write' | 'Bash'): WorkStep[] {
  const dir = path.dirname(file);
  const profile = profileOf(path.basename(file), taskOf(ctx.call.firstUser));
  const check = ctx.call.tools.includes('Bash')
    ? bashStep(`cat '${file}'`, 'check it')
    : { call: { name: 'Read', input: { file_path: file } }, done: (c: SeenCall) => c.name === 'Read' && c.input.file_path === file };
  if (profile === 'md2html') {
    const sample = path.join(dir, 'sample.md');
    return [
      writeStep(file, MD2HTML_SCRIPT, via),
      writeStep(sample, SAMPLE_MD, via),
      bashStep(`cd '${dir}' && node ${path.basename(file)} sample.md > sample.html && cat sample.html`, 'convert the sample'),
    ];
  }
  if (profile === 'listing') {
    const ls = bashStep(`ls -A '${dir}'`, 'list the workspace');
    const seen = ctx.all.find(ls.done)?.result;
    return [ls, writeStep(file, listingLines(seen && !seen.isError ? seen.text : '', file), via), check];
  }
  return [writeStep(file, `${taskOf(ctx.call.firstUser)}\n`, via), check];
}

function work(ctx: TurnContext): Plan {
  const ws = /^Workspace: (\S+)/m.exec(ctx.call.firstUser)?.[1] ?? ctx.ws;
  const file = /^Artifact: (\S+)/m.exec(ctx.call.firstUser)?.[1] ?? path.join(ws, artifactOf(ctx));
  const tools = ctx.call.tools;
  if ((!tools.includes('Write') && !tools.includes('Bash')) || /change nothing/.test(ctx.call.firstUser)) return survey(ctx, ws);
  const via = !tools.includes('Write') ? 'Bash' : !tools.includes('Bash') ? 'Write' : ctx.pick.pick(['Write', 'Bash'] as const);
  const steps = recipe(ctx, file, via);
  const next = steps.find((s) => !ctx.all.some(s.done));
  if (next) return { calls: [next.call], what: `${next.call.name} ${path.basename(file)}` };
  const failed = steps.map((s) => ctx.all.find(s.done)).find((c) => c?.result?.isError);
  const last = ctx.all.find(steps.at(-1)!.done);
  const conclusion = failed ? `${file} is not done: ${failed.name} failed (${clip(firstLine(failed.result!.text))})` : `${file} is written and checked.`;
  const evidence = last
    ? `${last.name} ${clip(String(last.input.command ?? last.input.file_path ?? ''), 60)} → ${clip(firstLine(last.result?.text ?? ''))}`
    : 'none';
  return say(`Conclusion: ${conclusion}\nEvidence: ${evidence}\nOutputs: ${file}\nUnverified: none`, 'report');
}

/** A read-only worker: look, then report what is there. */
function survey(ctx: TurnContext, ws: string): Plan {
  const looked = ctx.all.find((c) => (c.name === 'Bash' || c.name === 'Glob') && c.result);
  if (!looked)
    return ctx.call.tools.includes('Bash')
      ? use('Bash', { command: `ls -A '${ws}'`, description: 'list the workspace' }, 'survey')
      : use('Glob', { pattern: '*', path: ws }, 'survey');
  const names = looked
    .result!.text.split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('<'));
  return say(
    `Conclusion: the workspace holds ${names.length} entries.\nEvidence: ${looked.name} → ${clip(names.join(', '), 300)}\nOutputs: none (read only)\nUnverified: none`,
    'report',
  );
}

/** Read every file the checklist names, then judge each item from what was read. */
function judge(ctx: TurnContext): Plan {
  const items = checklistOf(ctx.call.firstUser);
  const abs = (f: string): string => (path.isAbsolute(f) ? f : path.join(ctx.ws, f));
  const files = filesNamedIn(items.join('\n')).map(abs);
  const reads = ctx.all.filter((c) => (c.name === 'Read' || c.name === 'Glob') && c.result);
  const readRounds = new Set(ctx.turn.filter((c) => c.name === 'Read' || c.name === 'Glob').map((c) => c.at)).size;
  // a Read that never got through (its input did not parse, the stream was cut) is tried again
  const unread = files.filter((f) => !reads.some((r) => r.input.file_path === f));
  if (readRounds < 3 && !ctx.turn.some((c) => c.name.endsWith('submit_verdict'))) {
    if (files.length === 0 && reads.length === 0) return use('Glob', { pattern: '**/*', path: ctx.ws }, 'look');
    if (unread.length > 0) return { calls: unread.map((f) => ({ name: 'Read', input: { file_path: f } })), what: `read ${unread.length}` };
  }
  const v = verdictFrom(items, reads, abs);
  return submit(ctx, 'verdict', v, verdictMarkdown(v));
}

const emptyRead = (t: string): boolean => t.trim() === '' || /empty contents|file is empty/i.test(t);

export function verdictFrom(items: readonly string[], reads: readonly SeenCall[], abs: (f: string) => string): VerdictInput {
  const checks: VerdictCheck[] = items.map((item) => {
    const named = filesNamedIn(item).map(abs);
    const readOf = (f: string): SeenCall | undefined =>
      reads.find((r) => r.input.file_path === f && !r.result!.isError) ?? reads.find((r) => r.input.file_path === f);
    const seen = named.length ? named.map(readOf) : reads.slice(0, 1);
    const needles = item.match(/<[a-z][a-z0-9]*>/g) ?? [];
    const readOk = seen.length > 0 && seen.every((r) => r?.result && !r.result.isError && !emptyRead(r.result.text));
    const found = needles.filter((n) => seen.some((r) => r?.result?.text.includes(n)));
    const pass = readOk && found.length === needles.length;
    const what = seen.map((r, i) =>
      r?.result
        ? `${r.name} ${path.basename(String(r.input.file_path ?? r.input.path ?? ''))}: ${r.result.isError ? 'error: ' : ''}${clip(firstLine(r.result.text), 60) || '(empty)'}`
        : `${path.basename(named[i] ?? '?')} was not read`,
    );
    if (needles.length)
      what.push(`${needles.join(' ')} ${found.length === needles.length ? 'found' : `missing ${needles.filter((n) => !found.includes(n)).join(' ')}`}`);
    return { item, pass, evidence: what.join('; ') };
  });
  const failed = checks.filter((c) => !c.pass);
  return {
    state: checks.length > 0 && failed.length === 0 ? 'achieved' : 'not_yet',
    reason: failed.length
      ? `${failed.length} of ${checks.length} checks failed: ${failed.map((c) => c.item).join('; ')}`
      : checks.length
        ? ''
        : 'the prompt shows no checklist',
    checks,
  };
}

function handoff(ctx: TurnContext): Plan {
  const h = handoffFor(artifactOf(ctx));
  return submit(ctx, 'handoff', h, handoffMarkdown(h));
}

/** The plausible turn for this request. */
export function plausible(ctx: TurnContext): Plan {
  switch (ctx.role) {
    case 'clarify':
      return clarify(ctx);
    case 'goal':
      return goal(ctx);
    case 'coordinator':
      return coordinate(ctx);
    case 'worker':
      return work(ctx);
    case 'judge':
      return judge(ctx);
    case 'handoff':
      return handoff(ctx);
    default:
      return say('OK.');
  }
}

/** Valid documents for each submit kind, for faults that hand one to the wrong tool. */
export function documentFor(ctx: TurnContext, kind: 'brief' | 'goal' | 'verdict' | 'handoff'): Record<string, unknown> {
  const task = taskOf(ctx.call.firstUser);
  const artifact = artifactOf(ctx);
  switch (kind) {
    case 'brief':
      return { ...briefFor(task, artifact) };
    case 'goal':
      return { ...goalFor(task, artifact) };
    case 'handoff':
      return { ...handoffFor(artifact) };
    case 'verdict': {
      const items = checklistOf(ctx.call.firstUser);
      const checks = (items.length ? items : [`${artifact} exists`]).map((item) => ({ item, pass: true, evidence: `looked at ${artifact}` }));
      return { state: 'achieved', reason: '', checks };
    }
  }
}
