/**
 * A stand-in Runtime for Workflow CONTROL FLOW only (labels, gates, retries, lineage wiring).
 * Behaviour against the real SDK is proven by the end-to-end tests, never by this.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunOptions, StepResult } from '../../src/runtime/index.js';
import type { AgentSpec } from '../../src/runtime/index.js';
import type { WorkflowRuntime } from '../../src/workflow/index.js';

export interface FakeCall {
  spec: string;
  prompt: string;
  stepName: string;
  resume?: string;
  fork?: boolean;
  sessionId: string;
  /** was runtime.onSession attached during this call? */
  hooked: boolean;
}

export type Reply = Partial<StepResult> | ((call: FakeCall) => Partial<StepResult>);

export class FakeRuntime implements WorkflowRuntime {
  readonly runDir: string;
  readonly workspace: string;
  onSession: ((sid: string) => void) | undefined;
  readonly calls: FakeCall[] = [];
  readonly alive = new Set<string>();
  private n = 0;

  constructor(
    readonly replies: Reply[] = [],
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-fake-')),
  ) {
    this.workspace = path.join(dir, 'ws');
    this.runDir = path.join(dir, 'runs');
    fs.mkdirSync(this.workspace, { recursive: true });
  }

  hasSession(sid: string): boolean {
    return this.alive.has(sid);
  }

  /** What a gate corrected on a finished row (a verdict, a failure), as the real Runtime records it. */
  readonly amended: Array<{ step: string; fields: Partial<StepResult> }> = [];

  async amend(result: StepResult, fields: Partial<Pick<StepResult, 'ok' | 'error' | 'verdict' | 'failure'>>): Promise<void> {
    Object.assign(result, fields);
    this.amended.push({ step: result.step, fields });
  }

  async run(spec: AgentSpec, prompt: string, o: RunOptions = {}): Promise<StepResult> {
    const sessionId = o.resume && !o.fork ? o.resume : `sid-${++this.n}`;
    const call: FakeCall = {
      spec: spec.name,
      prompt,
      stepName: o.stepName ?? spec.name,
      sessionId,
      hooked: this.onSession !== undefined,
      ...(o.resume ? { resume: o.resume } : {}),
      ...(o.fork ? { fork: true } : {}),
    };
    this.calls.push(call);
    this.alive.add(sessionId);
    this.onSession?.(sessionId);
    o.onSession?.(sessionId);
    const r = this.replies.shift() ?? {};
    const over = typeof r === 'function' ? r(call) : r;
    const now = new Date().toISOString();
    return {
      step: call.stepName,
      session_id: sessionId,
      ok: true,
      cost_usd: 0.01,
      num_turns: 1,
      text: `answer ${this.n}`,
      error: null,
      started_at: now,
      ended_at: now,
      attempts: 1,
      errors: [],
      resumed: false,
      retired: [],
      context: 0,
      ...over,
    };
  }
}
