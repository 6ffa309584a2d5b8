/**
 * Which step a person's interrupt belongs to: the step run that was going when they asked, or —
 * between steps — the next one. Typed as the work step finished, an interrupt once cut the judge that
 * followed mid-verdict; scoped, the step that was meant hears it (next.ts: even after its last message),
 * and words for a step that ended without hearing them never reach another.
 */
export class Interrupts {
  private request: { remark: string; step: number } | null = null;
  private seq = 0;
  private running: number | null = null;

  /** Ask the running step (or the next) to stop at its next message boundary and go on with `remark`. */
  ask(remark: string): void {
    this.request = { remark: remark.trim(), step: this.running ?? this.seq + 1 };
  }

  /** A step run begins: its number; words for an earlier one that never heard them are dropped. */
  begin(): number {
    const step = ++this.seq;
    if (this.request && this.request.step < step) this.request = null;
    this.running = step;
    return step;
  }

  end(): void {
    this.running = null;
  }

  /** The request waiting for this step run, if any. */
  for(step: number): { remark: string } | null {
    return this.request && this.request.step === step ? this.request : null;
  }

  /** The request waiting for the step that is running now. */
  get now(): { remark: string } | null {
    return this.running === null ? null : this.for(this.running);
  }

  take(): void {
    this.request = null;
  }

  get pending(): boolean {
    return this.request !== null;
  }
}
