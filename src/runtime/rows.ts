/**
 * The manifest rows of one Runtime's steps, over a step's life: written when it starts; rewritten the
 * moment its session id exists (continuity's first invariant holds for the row as for lineage — a kill
 * at any later moment leaves a row naming the session the next wake continues, which is what
 * `flower log` and the fleet read); written as killed by a signal's rescue; completed at its end.
 */
import { errorText } from '../errors.js';
import { failure } from './failure.js';
import type { Manifest, StepResult } from './manifest.js';

/** A step in progress and the row it owns. */
export interface StepRow {
  result: StepResult;
  index: number;
}

type Listener = ((sessionId: string) => void | Promise<void>) | undefined;

export class StepRows {
  private inflight: StepRow | undefined;
  private readonly rowOf = new WeakMap<StepResult, number>();
  /** session ids on their way to the row and to lineage */
  private readonly announcing = new Set<Promise<void>>();

  constructor(
    private readonly manifest: Manifest,
    private readonly warn: (m: string) => void,
  ) {}

  /** The step in progress, if any. */
  get current(): StepRow | undefined {
    return this.inflight;
  }

  /** A step starts: its row is written (its index held before the write is awaited, so a signal during it still rescues this row). */
  async begin(result: StepResult): Promise<StepRow> {
    const row = { result, index: this.manifest.nextIndex() };
    this.inflight = row;
    this.rowOf.set(result, row.index);
    await this.manifest.record(result, row.index);
    return row;
  }

  /** Write a step's row as it stands (a retry's wait, a verdict, a rejection); a result of no step here writes nothing. */
  async rewrite(result: StepResult): Promise<void> {
    const index = this.rowOf.get(result);
    if (index !== undefined) await this.manifest.record(result, index);
  }

  /** The step has ended: its last write (a no-op once a signal's rescue sealed the manifest: the killed row stands). */
  async end(row: StepRow): Promise<void> {
    if (this.inflight === row) this.inflight = undefined;
    await this.manifest.record(row.result, row.index);
  }

  /**
   * What the step calls the moment its session id exists — before spawning when flower chose the id or
   * resumes one, at system/init for a fork: the row is rewritten to name it (a handoff's successor's too)
   * while the listeners (a Workflow's lineage) remember it. Never rejects: a row that cannot be written
   * is said, and the step's last write fails loudly.
   */
  announcer(row: StepRow, listeners: () => Listener[]): (sid: string) => Promise<void> {
    let told: string | null = null;
    const tell = async (cb: Listener, sid: string): Promise<void> => {
      try {
        await cb?.(sid);
      } catch (e) {
        this.warn(`onSession callback failed: ${errorText(e)}`);
      }
    };
    return (sid) => {
      if (told === sid) return Promise.resolve();
      told = sid;
      const changed = row.result.session_id !== sid;
      row.result.session_id = sid;
      const written = changed ? this.manifest.record(row.result, row.index).catch((e) => this.warn(`manifest write failed: ${errorText(e)}`)) : undefined;
      const done: Promise<void> = Promise.all([written, ...listeners().map((cb) => tell(cb, sid))]).then(() => {
        this.announcing.delete(done);
      });
      this.announcing.add(done);
      return done;
    };
  }

  /**
   * Write the in-flight step as failed with `reason` (SIGHUP/SIGTERM, a second Ctrl-C), its session id
   * included. The files backend writes before the promise is first awaited: the row is on disk when this
   * returns; PostgreSQL's write is waited for by `settled()`.
   */
  rescue(reason: string): void {
    const f = this.inflight;
    if (!f) return;
    f.result.ok = false;
    f.result.error = reason;
    f.result.errors.push(reason);
    f.result.failure = failure(reason === 'interrupted-by-human' ? 'interrupted' : 'killed', reason);
    f.result.ended_at = new Date().toISOString();
    this.inflight = undefined;
    try {
      this.manifest.record(f.result, f.index).catch(() => {
        /* dying anyway */
      });
    } catch {
      /* dying anyway */
    }
  }

  /** Resolves once every write asked for so far (rows, session ids to lineage) has ended, or after `capMs`. */
  async settled(capMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((r) => {
      timer = setTimeout(r, capMs);
    });
    try {
      await Promise.race([Promise.allSettled([this.manifest.settled(), ...this.announcing]), cap]);
    } finally {
      clearTimeout(timer);
    }
  }
}
