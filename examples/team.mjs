/**
 * A workflow to copy: a coordinator with two workers (a researcher who reads, a writer who writes)
 * and a judge gate that decides each round against a checklist.
 *
 *   flower run examples/team.mjs "write NOTES.md: one line on what each file here is for"
 *
 * `flower run` calls the default export with:
 *   channel   — the HumanChannel the terminal is connected to: hand it to every role that may ask you
 *               something, and to the Workflow; a digit answers a question, typed text reaches the inbox
 *   flower    — the library itself (Workflow, Step, coordinator, worker, judge, withGoal, Goal, …), so a
 *               copy of this file needs no import and works from any folder
 *   ask       — the words after the file name
 *   workspace — the folder the agents work in (-w)
 *   runDir    — where sessions.db, manifest.json and lineage.json live (-r)
 *
 * The coordinator's spec wants the workbench, so `flower run` turns it on: big tool outputs spill to
 * .flower/spill/ and the coordinator's new session opens with the workbench index (.flower/INDEX.md).
 *
 * The writer uses a skill, `notes-style` (examples/skills/notes-style/SKILL.md): the first run copies it
 * into the workspace's project skills (.flower/skills/), where you can edit it; the coordinator is told
 * which worker has which skill, and the writer loads it with the Skill tool (docs/skills.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What "done" means for this example; the judge checks every line and reports n/m. */
const CHECKS = ['NOTES.md exists in the workspace and is not empty', 'every file in the workspace (except NOTES.md and .flower/) has a line in NOTES.md'];

export default function team({ channel, flower, ask, workspace, runDir }) {
  const { Workflow, Step, Goal, coordinator, worker, judge, withGoal, detectLang } = flower;
  const lang = detectLang();
  const task = (ask ?? '').trim() || 'Write NOTES.md: one line on what each file in this folder is for.';

  // the judge hands its verdict in as checked fields (state + one result per check)
  channel.withSubmissions(['verdict']);

  // the goal the judge reads: written once; edit .flower/notes/目标.md to change what "done" means
  const goalPath = path.join(workspace, '.flower', 'notes', '目标.md');
  if (!Goal.load(goalPath)) new Goal({ statement: task, checks: CHECKS }).write(goalPath);

  // a project skill, versioned with the project: copied in once, never over your edits
  const skillDir = path.join(workspace, '.flower', 'skills', 'notes-style');
  if (!fs.existsSync(skillDir)) {
    fs.cpSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'skills', 'notes-style'), skillDir, { recursive: true });
  }

  const workers = {
    researcher: worker(
      'reads files and runs read-only commands; reports facts with paths, changes nothing',
      'Only read and report what you found, with paths.',
      { tools: ['Read', 'Glob', 'Grep', 'Bash'], lang },
    ),
    writer: worker('writes and edits files from the facts it is given', 'Follow the notes-style skill for NOTES.md.', { lang, skills: ['notes-style'] }),
  };
  const lead = coordinator(
    'team',
    'Send the researcher first; then give the writer what the researcher found. Ask the person only what you cannot find out.',
    workers,
    { channel, lang },
  );

  let build = new Step('build', lead, `Task: ${task}`);
  build = withGoal(build, judge('build·判定', { channel, canRun: true, lang }), channel, {
    goalPath,
    manifestPath: path.join(runDir, 'manifest.json'),
    rounds: 2,
    lang,
  });
  return new Workflow([build], { name: 'team', channel });
}
