/**
 * Who owes us output right now: the main thread, or a worker the main thread is waiting on. The
 * watchdog counts silence only while some model owes a message — never while a tool runs (a long
 * Bash, a worker's long Bash) — and it counts a worker's model too.
 *
 * Why the workers: a stalled stream inside a worker's request held a run ~5 minutes (issue 19): flower's
 * watchdog was off while the main thread waited on the Agent tool, and the binary's own idle limit is
 * floored at 300 s. Pure: fed the SDK's messages, it says whether the watchdog should run.
 */
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The main thread's tools that wait on a worker's model (the binary's name for the Agent tool has changed). */
const WORKER_TOOLS = new Set(['Agent', 'Task']);

const blocks = (m: Obj): Obj[] => {
  const msg = isObj(m.message) ? m.message : {};
  return (Array.isArray(msg.content) ? msg.content : []).filter(isObj);
};

export class Silence {
  /** main-thread tool calls not answered yet */
  private mainTools = 0;
  /** workers in the foreground (by the Agent call's id): how many of their own tool calls run */
  private readonly workers = new Map<string, number>();
  /** the main thread owes a message (it is not waiting on a tool, and the turn has not ended) */
  private mainOwes = true;

  /** Feed one SDK message; returns whether some model owes output now (the watchdog should count). */
  see(m: Obj): boolean {
    const parent = typeof m.parent_tool_use_id === 'string' ? m.parent_tool_use_id : null;
    if (m.type === 'result') {
      this.mainOwes = false;
      this.workers.clear();
    } else if (parent !== null) this.worker(parent, m);
    else if (m.type === 'assistant') this.mainAssistant(m);
    else if (m.type === 'user') this.mainUser(m);
    // the model streaming, or a background task telling the main thread something: a message is owed
    else if (
      m.type === 'stream_event' ||
      (m.type === 'system' && (m.subtype === 'task_notification' || m.subtype === 'task_started' || m.subtype === 'init'))
    ) {
      this.mainOwes = this.mainTools === 0;
    }
    return this.owed();
  }

  /** Some model owes output: the main thread, or a foreground worker not running a tool of its own. */
  owed(): boolean {
    return this.who() !== null;
  }

  /** Whose silence the watchdog would be counting (for its message). */
  who(): 'main' | 'worker' | null {
    if (this.mainOwes && this.mainTools === 0) return 'main';
    for (const running of this.workers.values()) if (running === 0) return 'worker';
    return null;
  }

  private mainAssistant(m: Obj): void {
    for (const b of blocks(m)) {
      if (b.type !== 'tool_use') continue;
      this.mainTools++;
      const input = isObj(b.input) ? b.input : {};
      // a background worker (run_in_background) is waited on through task notifications, not here
      if (WORKER_TOOLS.has(String(b.name)) && typeof b.id === 'string' && input.run_in_background !== true) this.workers.set(b.id, 0);
    }
    this.mainOwes = this.mainTools === 0;
  }

  private mainUser(m: Obj): void {
    for (const b of blocks(m)) {
      if (b.type !== 'tool_result') continue;
      this.mainTools = Math.max(0, this.mainTools - 1);
      if (typeof b.tool_use_id === 'string') this.workers.delete(b.tool_use_id);
    }
    this.mainOwes = this.mainTools === 0;
  }

  private worker(id: string, m: Obj): void {
    if (!this.workers.has(id)) return;
    const running = this.workers.get(id)!;
    if (m.type === 'assistant') {
      const calls = blocks(m).filter((b) => b.type === 'tool_use').length;
      // a worker's answer without a tool call is its report: the main thread gets it as the Agent result
      this.workers.set(id, calls > 0 ? running + calls : Number.POSITIVE_INFINITY);
    } else if (m.type === 'user') {
      const results = blocks(m).filter((b) => b.type === 'tool_result').length;
      this.workers.set(id, Math.max(0, running - results));
    }
  }
}
