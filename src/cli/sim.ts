/** `flower sim --script f.json [--port N]` — serve a scenario until Ctrl-C, SIGTERM or POST /__sim/close. */
import path from 'node:path';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import type { GlobalOptions } from './globals.js';

export async function sim(o: { script: string; port: number }, g: GlobalOptions, io: CliIO): Promise<number> {
  // loaded on demand: the sim is not needed by any other command
  const { serveScenario, listeningLines } = await import('../sim/index.js');
  const file = path.resolve(io.cwd ?? process.cwd(), o.script);
  const server = await serveScenario({ file, port: o.port });
  if (g.json) {
    const { simEnv } = await import('../sim/index.js');
    io.stdout.write(`${JSON.stringify({ kind: 'listening', url: server.url, env: simEnv(server.url), pending: server.pending().length })}\n`);
  } else io.stdout.write(listeningLines(server).join('\n') + '\n');
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      void server.close().then(resolve, resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    server.closed.then(
      () => stop(),
      () => stop(),
    );
  });
  return EXIT.ok;
}
