// A second (and third) process for test/store/contract-inbox.test.ts: takes every pending item it can
// and prints the ids it won, one a line.
import { FileRunRecords, RunLayout, type RunRecords } from '../../src/state/index.js';
import { PostgresRunRecords } from '../../src/store/postgres/index.js';

const records: RunRecords = process.env.INBOX_PG_URL
  ? await new PostgresRunRecords(process.env.INBOX_PG_URL, 'proj').open()
  : new FileRunRecords(RunLayout.of({ runDir: process.env.INBOX_RUN_DIR! }));
const won: string[] = [];
for (const item of await records.inbox.pending()) {
  if (await records.inbox.claim(item.id, String(process.pid))) won.push(item.id);
}
process.stdout.write(won.map((x) => `${x}\n`).join(''));
records.close?.();
