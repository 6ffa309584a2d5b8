/**
 * FLOWER_LIFELINE_FD=N: this flower was started by a fleet worker (src/fleet/take.ts), which holds the
 * other end of the pipe on fd N. When that end closes — the worker exited or was killed, even by
 * SIGKILL — this process ends as it does on SIGTERM (the step is recorded as killed-by-signal and stays
 * resumable), so no orphan works on a task that another host is about to take. Reads nothing.
 */
import net from 'node:net';

export function watchLifeline(env: Record<string, string | undefined>): void {
  const raw = env.FLOWER_LIFELINE_FD;
  // read once: the agents' processes (and a flower they start) must not take the fd for theirs
  delete env.FLOWER_LIFELINE_FD;
  if (!raw || !/^\d+$/.test(raw)) return;
  let sock: net.Socket;
  try {
    sock = new net.Socket({ fd: Number(raw), readable: true, writable: false });
  } catch {
    return; // not a pipe: nothing to watch
  }
  const gone = () => {
    if (process.listenerCount('SIGTERM') > 0) process.kill(process.pid, 'SIGTERM');
    else process.exit(143);
  };
  sock.on('end', gone);
  sock.on('close', gone);
  sock.on('error', gone);
  sock.resume();
  // the watch alone never keeps the process alive
  sock.unref();
}
