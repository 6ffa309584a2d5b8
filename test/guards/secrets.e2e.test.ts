/**
 * Issue 18 end to end, secrets: a worker on the real binary (sim on 127.0.0.1) prints its environment
 * — with ~/.bashrc exporting the key, DATABASE_URL holding a password, REDIS_URL, MYSQL_PWD, GITHUB_TOKEN
 * and GH_TOKEN in the environment — sources the rc itself, starts a login shell, and reads every host
 * credential store by Bash and by Read. With the sandbox and with --no-sandbox, no secret value reaches
 * a request the model receives, sessions.db, or a file under the workspace or the run dir.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { coordinator, worker } from '../../src/roles/index.js';
import { Runtime } from '../../src/runtime/index.js';

import { project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

const KEY = 'sk-ant-e2e-SECRETS-7b2e91';
const SECRETS = {
  db: 'dbpw-e2e-5d8c1f',
  redis: 'redispw-e2e-0a9b3c',
  mysql: 'mysqlpw-e2e-66e1d2',
  gh: 'ghp_e2eTOKEN0123456789abcdefghijKLMN',
  gh2: 'gh2-e2e-token-3c4d5e',
  rcOnly: 'rc-only-e2e-9f8e7d',
  ws: 'ws-env-e2e-1a2b3c',
};
const FILES: Record<string, string> = {
  '.ssh/id_ed25519': 'SSHKEY-e2e-aa11',
  '.aws/credentials': 'AWS-e2e-bb22',
  '.config/gh/hosts.yml': 'GHHOSTS-e2e-cc33',
  '.netrc': 'NETRC-e2e-dd44',
  '.git-credentials': 'GITCRED-e2e-ee55',
  '.docker/config.json': 'DOCKER-e2e-ff66',
  '.kube/config': 'KUBE-e2e-0077',
  '.npmrc': 'NPMRC-e2e-1188',
  '.bash_history': 'HISTORY-e2e-2299',
  '.claude.json': 'CLAUDEJSON-e2e-3300',
};

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? filesUnder(p) : d.isFile() ? [p] : [];
  });
}

for (const sandboxed of [true, false]) {
  test(`no secret reaches the model, sessions.db or a file — ${sandboxed ? 'in the sandbox' : 'with --no-sandbox'}: env, a sourced rc, a login shell, every credential store`, {
    timeout: 300_000,
  }, async () => {
    const p = project(sandboxed ? 'secrets' : 'secrets-ns');
    const home = p.home;
    fs.writeFileSync(path.join(home, '.bashrc'), `export ANTHROPIC_API_KEY=${KEY}\nexport RC_ONLY_TOKEN=${SECRETS.rcOnly}\nalias ll='ls -l'\n`);
    fs.writeFileSync(path.join(home, '.profile'), '[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"\n');
    for (const [f, marker] of Object.entries(FILES)) {
      fs.mkdirSync(path.dirname(path.join(home, f)), { recursive: true });
      fs.writeFileSync(path.join(home, f), `${marker}\n`);
    }
    fs.writeFileSync(path.join(p.ws, '.env'), `APP_SECRET=${SECRETS.ws}\n`);
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      SHELL: '/bin/bash',
      ANTHROPIC_BASE_URL: sim.url,
      ANTHROPIC_API_KEY: KEY,
      FLOWER_CLI_RETRIES: '0',
      FLOWER_WATCHDOG: '30',
      FLOWER_LANG: 'en',
      DATABASE_URL: `postgres://app:${SECRETS.db}@db.internal:5432/app`,
      REDIS_URL: `redis://:${SECRETS.redis}@cache:6379/0`,
      MYSQL_PWD: SECRETS.mysql,
      GITHUB_TOKEN: SECRETS.gh,
      GH_TOKEN: SECRETS.gh2,
      EDITOR: 'vim',
    };
    const builder = worker('runs commands', 'You run what the brief says.', { lang: 'en' });
    const spec = coordinator('coord', '', { builder }, { lang: 'en' });
    const coord = { firstUserIncludes: 'COORD-S18', not: { firstUserIncludes: 'TASK-S18' } } as const;
    const task = { firstUserIncludes: 'TASK-S18' } as const;
    const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', match: task, input: { command, description: id } });
    const read = (id: string, file: string) => ({ type: 'tool_use' as const, id, name: 'Read', match: task, input: { file_path: file } });
    sim.reset();
    sim.enqueue(
      {
        type: 'tool_use',
        id: 'toolu_task',
        name: 'Agent',
        match: coord,
        input: { description: 'look', prompt: 'TASK-S18: look around', subagent_type: 'builder', run_in_background: false },
      },
      bash('toolu_env', 'env; echo "EDITOR=[$EDITOR]"'),
      bash('toolu_source', 'source ~/.bashrc; env'),
      bash('toolu_login', 'bash -lc env'),
      bash('toolu_interactive', 'bash -ic env 2>/dev/null'),
      bash(
        'toolu_cat',
        `cat ${Object.keys(FILES)
          .map((f) => `~/${f}`)
          .join(' ')} ~/.bashrc .env 2>&1`,
      ),
      bash('toolu_proc', 'cat /proc/self/environ | tr "\\0" "\\n"; cat /proc/$PPID/environ 2>&1 | tr "\\0" "\\n"'),
      ...Object.keys(FILES).map((f, i) => read(`toolu_read_${i}`, path.join(home, f))),
      read('toolu_read_rc', path.join(home, '.bashrc')),
      read('toolu_read_env', path.join(p.ws, '.env')),
      { type: 'text', match: task, text: 'Conclusion: looked. S18-REPORT' },
      { type: 'text', match: { ...coord, lastUserIncludes: 'S18-REPORT' }, text: 'done' },
    );
    const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env, workbench: true, onWarning: () => {}, ...(sandboxed ? {} : { sandbox: false as const }) });
    let row;
    try {
      row = await rt.run(spec, 'COORD-S18: look around');
    } finally {
      rt.close();
    }
    assert.equal(row.ok, true, row.error ?? '');
    sim.assertConsumed();

    const bodies = sim
      .messageRequests()
      .map((r) => JSON.stringify(r.body))
      .join('\n');
    assert.match(bodies, /EDITOR=\[vim\]/, "the worker's env ran and its output reached the model");
    const never = [KEY, ...Object.values(SECRETS), ...Object.values(FILES)];
    for (const s of never) assert.ok(!bodies.includes(s), `${s} reached the model`);
    for (const f of [...filesUnder(p.ws), ...filesUnder(p.runs)].filter((f) => f !== path.join(p.ws, '.env'))) {
      const bytes = fs.readFileSync(f);
      for (const s of never) assert.equal(bytes.includes(s), false, `${s} in ${f}`);
    }
  });
}
