/**
 * A task's workspace: a fresh clone of its repository on every take, on the branch `flower/<id>` —
 * created from the base on the first take, checked out as it was last pushed on a later one — and the
 * commit + push after every step, so another host continues from there. `.flower/notes` (the brief, the
 * goal, the handoff notes, the Q&A log) is committed with the work although `.flower/` is ignored: it is
 * what a wake needs from the workspace. Nothing else under `.flower/` (spill files, scripts) travels.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export class GitError extends Error {
  constructor(
    readonly code: 'clone' | 'branch' | 'push',
    message: string,
  ) {
    super(message);
  }
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function git(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      // never a prompt for a password: a worker has no terminal
      { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', LC_ALL: 'C' }, maxBuffer: 16 * 1024 * 1024 },
      (e, stdout, stderr) => {
        const code = e ? (typeof (e as { code?: unknown }).code === 'number' ? ((e as { code: number }).code as number) : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** git's own last words on a failure, one line. */
function lastLine(r: Run): string {
  const lines = r.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.findLast((l) => /^(fatal|error):/.test(l)) ?? lines.at(-1) ?? `git exited ${r.code}`).replace(/^(fatal|error):\s*/, '');
}

/** An identity for the commits when the host has none configured (a fresh service user). */
const identity = ['-c', 'user.name=flower fleet', '-c', `user.email=flower@${os.hostname() || 'localhost'}`];

export interface Prepared {
  /** the branch existed on the origin: this take continues an earlier one */
  continued: boolean;
}

/** Clone `repo` into `dir` (emptied first) and check out `branch`. A failure is one line naming the repository. */
export async function prepare(repo: string, dir: string, branch: string, base?: string): Promise<Prepared> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const c = await git(['clone', '--quiet', '--no-tags', '--', repo, dir], path.dirname(dir));
  if (c.code !== 0) throw new GitError('clone', `cannot clone ${repo}: ${lastLine(c)}`);
  const remote = await git(['ls-remote', '--exit-code', '--heads', 'origin', branch], dir);
  if (remote.code === 0) {
    const r = await git(['checkout', '--quiet', '-B', branch, `origin/${branch}`], dir);
    if (r.code !== 0) throw new GitError('branch', `cannot check out ${branch} of ${repo}: ${lastLine(r)}`);
    return { continued: true };
  }
  const r = await git(['checkout', '--quiet', '-B', branch, ...(base ? [`origin/${base}`] : [])], dir);
  if (r.code !== 0) throw new GitError('branch', `cannot make ${branch} from ${base ? `origin/${base}` : 'the default branch'} of ${repo}: ${lastLine(r)}`);
  return { continued: false };
}

/** Commit everything in the workspace (with `.flower/notes`) and push it to the task branch. */
export async function commitAndPush(dir: string, branch: string, message: string): Promise<{ committed: boolean }> {
  await git(['add', '-A'], dir);
  if (fs.existsSync(path.join(dir, '.flower', 'notes'))) await git(['add', '-f', '--', '.flower/notes'], dir);
  const staged = await git(['diff', '--cached', '--quiet'], dir);
  let committed = false;
  if (staged.code === 1) {
    const r = await git([...identity, 'commit', '--quiet', '--no-verify', '-m', message], dir);
    if (r.code !== 0) throw new GitError('push', `cannot commit in ${dir}: ${lastLine(r)}`);
    committed = true;
  }
  const p = await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], dir);
  if (p.code !== 0) throw new GitError('push', `cannot push ${branch}: ${lastLine(p)}`);
  return { committed };
}
