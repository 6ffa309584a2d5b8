/**
 * A run that ends by an unexpected error (issue 22) still sends `finished` — `ok: false`, with the
 * error's kind and message — to a local webhook. `flower run` with a workflow whose step's `when`
 * throws: no model call is needed, the throw comes out of the workflow itself.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { notificationSchema, type Notification } from '../../src/notify/index.js';
import { cli, project, testEnv } from '../helpers/e2e.js';

const WORKFLOW = `export default ({ flower }) =>
  new flower.Workflow([
    new flower.Step('boom', new flower.AgentSpec({ name: 'boom', instructions: '' }), 'hi', {
      when: () => {
        throw new Error('the when hook BROKE');
      },
    }),
  ]);
`;

for (const lang of ['en', 'zh'] as const) {
  test(`[${lang}] a run that throws still delivers finished with ok:false and the error's kind`, async () => {
    const got: Notification[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => (body += c));
      req.on('end', () => {
        got.push(notificationSchema.parse(JSON.parse(body)));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const p = project('notify-crash');
      fs.writeFileSync(path.join(p.dir, 'wf.mjs'), WORKFLOW);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const r = await cli(['run', 'wf.mjs', '-w', p.ws, '-r', p.runs, '--notify', url], {
        cwd: p.dir,
        env: testEnv(p, 'http://127.0.0.1:9', { FLOWER_LANG: lang }),
      });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /the when hook BROKE/);
      // the run waits for its deliveries before it exits
      assert.deepEqual(
        got.map((n) => n.kind),
        ['finished'],
      );
      const n = got[0]!;
      assert.ok(n.kind === 'finished');
      assert.equal(n.ok, false);
      assert.deepEqual(n.error, { kind: 'internal', message: 'the when hook BROKE' });
      assert.match(n.text, lang === 'en' ? /unexpected error \(internal\): the when hook BROKE/ : /意外错误结束\(internal\):the when hook BROKE/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
}
