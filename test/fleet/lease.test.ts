/**
 * The heartbeat on a real PostgreSQL and the real engine: heartbeats asked for while one is in flight
 * (a round trip slower than the interval, on a loaded server) renew the lease once and never read as a
 * lost lease. Before, each sent its own compare-and-set with the same started_on; all but the first
 * matched no row, and a live worker exited 75 with its task handed to another.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { FleetQueue, QUEUE, QUEUE_SCHEMA, type Job } from '../../src/fleet/queue.js';
import { Take } from '../../src/fleet/take.js';
import { taskDataOf } from '../../src/fleet/ops.js';
import type { TaskData } from '../../src/fleet/tasks.js';
import { PG_SKIP, adminSql, dropDatabases, freshDatabase } from '../helpers/pg.js';

after(() => dropDatabases());

describe('the fleet heartbeat', { skip: PG_SKIP }, () => {
  test('heartbeats asked for at once renew the lease once, and the take stays ours', { timeout: 120_000 }, async () => {
    const url = await freshDatabase('lease');
    const db = new URL(url).pathname.slice(1);
    const queue = await FleetQueue.open(url);
    try {
      const task = taskDataOf({ request: 'LEASE: nothing', repo: '/nowhere' }, '/');
      await queue.send(task, { retryLimit: 0, retryDelayS: 0 });
      const [job] = (await queue.boss.fetch<TaskData>(QUEUE, { includeMetadata: true, batchSize: 1 })) as Job[];
      assert.ok(job, 'the engine handed out the job');
      const lost: string[] = [];
      const take = new Take(job, {
        queue,
        url,
        timing: { leaseS: 30, heartbeatS: 5, superviseS: 1, pollS: 1 },
        workdir: path.join(os.tmpdir(), 'flower-lease-unused'),
        flowerBin: '/unused',
        env: {},
        host: 'host-l',
        askTimeoutS: 0,
        emit: () => {},
        leaseLost: (t) => lost.push(t),
      });
      const startedOn = async () =>
        ((await adminSql(`SELECT started_on FROM ${QUEUE_SCHEMA}.job WHERE id = $1`, [job.id], db)).rows[0] as { started_on: Date }).started_on.getTime();
      const before = await startedOn();
      await Promise.all([take.heartbeat(), take.heartbeat(), take.heartbeat()]);
      assert.deepEqual(lost, [], 'no lease lost');
      const renewed = await startedOn();
      assert.notEqual(renewed, before, 'the lease was renewed');
      // and the next one, after them, renews from what they set
      await take.heartbeat();
      assert.deepEqual(lost, []);
      assert.ok((await startedOn()) >= renewed);
    } finally {
      await queue.close();
    }
  });
});
