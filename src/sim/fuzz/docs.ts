/**
 * What the fuzzing model's plausible roles hand in: a brief, a goal, a verdict, a handoff (the inputs
 * of flower's submit_* tools, in the shapes of src/docs/schemas.ts), their markdown forms (the
 * fallback a model that ignores the tool writes), and the artifact a worker makes.
 *
 * The artifact has a profile, so the checks the goal writes are checks the judge can decide from what
 * it reads: `md2html` (a working markdown-to-HTML script plus a sample and its output), `listing` (a
 * notes file with one line per file, like examples/team.mjs asks for) and `text` (any other file).
 */

export type ArtifactProfile = 'md2html' | 'listing' | 'text';

export function profileOf(artifact: string, task: string): ArtifactProfile {
  if (/\.(mjs|cjs|js)$/.test(artifact) && (/markdown|md2html|\bhtml\b/i.test(task) || artifact.includes('md2html'))) return 'md2html';
  if (/\.md$/.test(artifact)) return 'listing';
  return 'text';
}

/** The file a request is about: the one it names, else the script the default ask wants, else RESULT.md. */
export function artifactFor(task: string, named: readonly string[]): string {
  if (named.length > 0) return named[0]!;
  return /markdown|md.?to.?html|md2html/i.test(task) ? 'md2html.mjs' : 'RESULT.md';
}

export interface BriefInput {
  goal: string;
  acceptance: string[];
  boundaries: string[];
  unknowns: string[];
}
export interface GoalInput {
  statement: string;
  checks: Array<{ text: string }>;
}
export interface VerdictCheck {
  item: string;
  pass: boolean | null;
  evidence: string;
}
export interface VerdictInput {
  state: 'achieved' | 'not_yet' | 'unreachable';
  reason: string;
  checks: VerdictCheck[];
}
export interface HandoffInput {
  doing: string;
  decided: string;
  deadends: string;
  next: string;
  scene: string;
}

export function briefFor(task: string, artifact: string): BriefInput {
  const p = profileOf(artifact, task);
  const acceptance =
    p === 'md2html'
      ? [`run node ${artifact} sample.md > sample.html, get <h1> for a "# " heading`, `run node ${artifact} sample.md, get <li> for "- " list lines`]
      : p === 'listing'
        ? [`open ${artifact}, see one line for every file in the workspace`]
        : [`open ${artifact}, see it is not empty`];
  return {
    goal: `${task.replace(/[.。]\s*$/, '')} — as ${artifact} in the workspace, for the person who asked`,
    acceptance,
    boundaries: ['no dependencies beyond what is already installed', 'touch only files inside the workspace'],
    unknowns: [
      p === 'md2html'
        ? 'nobody said which markdown flavour; assumed headings, lists, paragraphs and inline code'
        : 'nobody said how detailed it must be; assumed one short line per item',
    ],
  };
}

/** Checks a read-only judge can decide by reading files (each names the file it is about). */
export function goalFor(task: string, artifact: string): GoalInput {
  const p = profileOf(artifact, task);
  const checks =
    p === 'md2html'
      ? [
          `${artifact} exists in the workspace and reads the markdown file named on its command line`,
          `sample.html, made by node ${artifact} sample.md, has <h1> for the "# " heading of sample.md`,
          `sample.html has <li> for the "- " list lines of sample.md`,
        ]
      : p === 'listing'
        ? [`${artifact} exists in the workspace and is not empty`, `${artifact} has one line per file in the workspace`]
        : [`${artifact} exists in the workspace and is not empty`];
  return { statement: `${artifact} does what was asked: ${task.replace(/[.。]\s*$/, '')}`, checks: checks.map((text) => ({ text })) };
}

export function handoffFor(artifact: string): HandoffInput {
  return {
    doing: `making ${artifact}; the files written so far are on disk`,
    decided: `${artifact} lives in the workspace root, because the checklist looks for it there`,
    deadends: 'none yet',
    next: `check ${artifact} against the checklist; if an item fails, fix only that`,
    scene: artifact,
  };
}

const bulletsOf = (xs: readonly string[]): string => xs.map((x) => `- ${x}`).join('\n');

export function briefMarkdown(b: BriefInput): string {
  return `## Goal\n${b.goal}\n\n## Acceptance criteria\n${bulletsOf(b.acceptance)}\n\n## Boundaries\n${bulletsOf(b.boundaries)}\n\n## Unknowns and assumptions\n${bulletsOf(b.unknowns)}\n`;
}

export function goalMarkdown(g: GoalInput): string {
  return `## Goal\n${g.statement}\n\n## Checklist\n${bulletsOf(g.checks.map((c) => c.text))}\n`;
}

export function verdictMarkdown(v: VerdictInput): string {
  const lines = v.checks.map((c) => `- ${c.pass ? 'PASS' : 'FAIL'} ${c.item} — ${c.evidence}`);
  return `## Verdict\n${v.state}\n\n## Reason\n${v.reason || 'every check passed'}\n\n${lines.join('\n')}\n`;
}

export function handoffMarkdown(h: HandoffInput): string {
  return `## Doing now\n${h.doing}\n\n## Decided\n${h.decided}\n\n## Dead ends\n${h.deadends}\n\n## Next step\n${h.next}\n\n## Scene\n${h.scene}\n`;
}

/** A real markdown-to-HTML converter (headings, lists, paragraphs, inline code and emphasis). */
export const MD2HTML_SCRIPT = `#!/usr/bin/env node
// desc: markdown to HTML on stdout: headings, lists, paragraphs, inline code and emphasis
import { readFileSync } from 'node:fs';

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const inline = (s) => esc(s)
  .replace(/\`([^\`]+)\`/g, '<code>$1</code>')
  .replace(/\\*\\*([^*]+)\\*\\*/g, '<strong>$1</strong>')
  .replace(/\\*([^*]+)\\*/g, '<em>$1</em>');

export function md2html(md) {
  const out = [];
  let para = [];
  let list = false;
  const flush = () => { if (para.length) out.push(\`<p>\${inline(para.join(' '))}</p>\`); para = []; };
  for (const line of md.split('\\n')) {
    const h = /^(#{1,6})\\s+(.*)$/.exec(line);
    const li = /^[-*]\\s+(.*)$/.exec(line);
    if (!li && list) { out.push('</ul>'); list = false; }
    if (h) { flush(); out.push(\`<h\${h[1].length}>\${inline(h[2])}</h\${h[1].length}>\`); }
    else if (li) { flush(); if (!list) { out.push('<ul>'); list = true; } out.push(\`<li>\${inline(li[1])}</li>\`); }
    else if (line.trim() === '') flush();
    else para.push(line.trim());
  }
  flush();
  if (list) out.push('</ul>');
  return out.join('\\n') + '\\n';
}

const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: node md2html.mjs FILE.md');
  process.exit(2);
}
process.stdout.write(md2html(readFileSync(file, 'utf8')));
`;

export const SAMPLE_MD = '# Sample\n\nSome *text* with `code`.\n\n- one\n- two\n';

/** The lines of a listing artifact: one per entry an `ls -A` printed (flower's own folders left out). */
export function listingLines(lsOutput: string, artifact: string): string {
  const skip = new Set(['.flower', 'runs', artifact.split('/').at(-1)!]);
  const names = lsOutput
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !skip.has(l) && !l.startsWith('<'));
  const lines = names.map((n) => `- ${n}: a file of this project`);
  return `# Notes\n\n${lines.length ? lines.join('\n') : '- (no other files yet)'}\n`;
}

/** Deterministic filler of about `bytes` bytes: a huge answer that is still text a model could send. */
export function filler(bytes: number): string {
  const line = 'The quick brown fox jumps over the lazy dog while the converter keeps going. ';
  const n = Math.max(1, Math.ceil(bytes / line.length));
  return line.repeat(n).slice(0, bytes);
}
