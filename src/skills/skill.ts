/**
 * One skill: a folder with a SKILL.md whose YAML front matter names it and says when to use it.
 * Pure parsing and validation — no discovery, no I/O beyond what the caller hands in.
 *
 * The rules are Claude Code's own (a skill the binary cannot list is worse than a skipped one, because
 * the model would be briefed about a skill it can never load): `name` lowercase letters, digits and
 * hyphens, at most 64 characters; `description` non-empty, at most 1024 characters.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

// the parser loads with the first SKILL.md read, not with the module (`flower status` in a folder without skills)
let yaml: typeof Yaml | undefined;
const parseYaml = (src: string, o: Yaml.ParseOptions & Yaml.DocumentOptions & Yaml.SchemaOptions & Yaml.ToJSOptions): unknown =>
  (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml).parse(src, o);

export const SKILL_FILE = 'SKILL.md';
export const NAME_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const MAX_DESCRIPTION = 1024;

export interface SkillHead {
  name: string;
  description: string;
}

export type HeadResult = { ok: true; head: SkillHead; body: string } | { ok: false; reason: string };

/** `---\n…\n---` at the very top of the file; CRLF files too. */
const FRONT = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Read the front matter of a SKILL.md text and check it names a usable skill. */
export function parseSkill(text: string): HeadResult {
  const m = FRONT.exec(text);
  if (!m) return { ok: false, reason: 'has no front matter (a `---` block with `name:` and `description:` at the top)' };
  let data: unknown;
  try {
    data = parseYaml(m[1]!, { prettyErrors: false, maxAliasCount: 10 });
  } catch (e) {
    return { ok: false, reason: `has front matter that is not valid YAML (${(e as Error).message.split('\n')[0]})` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, reason: 'has front matter that is not a `key: value` map' };
  }
  const o = data as Record<string, unknown>;
  const name = typeof o.name === 'string' ? o.name.trim() : '';
  const description = typeof o.description === 'string' ? o.description.trim() : '';
  if (!name) return { ok: false, reason: 'has no `name:` in its front matter' };
  if (!NAME_RE.test(name)) return { ok: false, reason: `names itself '${name}': a skill name is lowercase letters, digits and hyphens, at most 64 characters` };
  if (!description) return { ok: false, reason: 'has no `description:` in its front matter (the model picks skills by it)' };
  if (description.length > MAX_DESCRIPTION) return { ok: false, reason: `has a description of ${description.length} characters (at most ${MAX_DESCRIPTION})` };
  return { ok: true, head: { name, description }, body: text.slice(m[0].length) };
}

/** Is `name` usable as a new skill's folder and name? Returns the reason when not. */
export function badSkillName(name: string): string | null {
  if (!NAME_RE.test(name)) return `'${name}' is not a skill name: use lowercase letters, digits and hyphens (at most 64), e.g. deploy-checklist`;
  return null;
}

/** The SKILL.md a new skill starts from (`flower skills new NAME`). */
export function skillTemplate(name: string): string {
  return `---
name: ${name}
description: One sentence on WHEN to use this skill (the model reads only this line until it loads the skill), e.g. "Use when deploying this repo to staging."
---

# ${name}

What an agent should know or do, step by step. Keep it short and concrete:

1. The commands to run (and from which folder).
2. What "done" looks like, and how to check it.
3. The traps people in this project have already fallen into.

Files next to this SKILL.md (scripts, templates) can be referred to by relative path.
`;
}
