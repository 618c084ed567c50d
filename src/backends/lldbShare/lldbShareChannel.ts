// The conversation with a person's LLDB: one command at a time (a selection change must never
// interleave with a read), what the program did since the last look turned into backend events
// (LLDB's protocol server sends none), and reads made in a thread and frame with the person's own
// selection put back after. The backend (lldbShareBackend.ts) builds the model's answers on it.

import { isAbsolute } from 'node:path';
import type { Frame, StopEvent } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import type { BackendEvent, FrameSelector } from '../debuggerBackend.js';
import type { CommandText, LldbMcpClient } from './lldbMcpClient.js';
import {
  errorText,
  narrowExitStatus,
  narrowFrameInfo,
  narrowSourceInfo,
  narrowStopCount,
  narrowStopReason,
  narrowTargetList,
  narrowThreadList,
  type TargetStatus,
} from './lldbShareText.js';

/** A read is preceded by a look at the program's state, at most this often. */
const REFRESH_MS = 250;
/** While the person's program runs, how often its state is read (nothing else would tell us it stopped). */
const RUNNING_POLL_MS = 500;
/** The backend's name for the one process of a shared LLDB. */
export const GROUP = 'p1';

/** Libraries of the system: their frames are the runtime's, whatever path their debug info gives. */
export const SYSTEM_LIBRARY =
  /^(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libc\+\+|libc\+\+abi)\.so|^ld-linux/;

export class LldbShareChannel {
  private queue: Promise<unknown> = Promise.resolve();
  status: TargetStatus = { state: 'none' };
  private stopCount: number | undefined;
  /** The thread of the latest stop: reads that name no thread are about it. */
  stopThread: number | undefined;
  private checkedAt = 0;
  private poll: NodeJS.Timeout | undefined;
  /** Full paths of source files LLDB named (by module and base name), the only files read from disk. */
  readonly sources = new Map<string, string>();

  constructor(
    private readonly client: LldbMcpClient,
    private readonly timeoutMs: number,
    private readonly emit: (event: BackendEvent) => void,
    private readonly ended: () => boolean,
  ) {}

  /** Waits for the commands under way, and stops reading the state. */
  async settle(): Promise<void> {
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    await this.queue.catch(() => {});
  }

  /** One command, in turn with every other (a selection change must not interleave with a read). */
  run(text: string, signal?: AbortSignal): Promise<CommandText> {
    const next = this.queue.then(() =>
      this.client.command(text, { timeoutMs: this.timeoutMs, ...(signal ? { signal } : {}) }),
    );
    this.queue = next.catch(() => {});
    return next;
  }

  /** A command whose error answer becomes a DebuggerError with LLDB's words. */
  async must(text: string, signal?: AbortSignal): Promise<string> {
    const r = await this.run(text, signal);
    if (r.isError) throw new DebuggerError('debugger_error', errorText(r.text));
    return r.text;
  }

  /**
   * What the program did since the last look: a new stop, a resume, an exit, a new process. The
   * events go to the session as they would from any backend, so evidence read across a change
   * is refused as stale.
   */
  async refresh(signal?: AbortSignal, force = false): Promise<void> {
    if (!force && Date.now() - this.checkedAt < REFRESH_MS) return;
    this.checkedAt = Date.now();
    const status = narrowTargetList(await this.must('target list', signal));
    const before = this.status;
    let count: number | undefined;
    if (status.state === 'stopped') {
      count = narrowStopCount(await this.must('statistics dump --summary --plugins false', signal));
    }
    this.status = status;
    if (before.pid !== undefined && before.pid !== status.pid) {
      this.emit({ type: 'inferior-exited', group: GROUP });
    }
    if (status.pid !== undefined && before.pid !== status.pid && status.state !== 'exited') {
      this.emit({ type: 'inferior-started', group: GROUP, pid: status.pid });
    }
    if (status.state === 'exited' && before.state !== 'exited') {
      const exit = narrowExitStatus(await this.run('process status', signal).then((r) => r.text));
      this.emit({ type: 'exited', exit: { ...(exit.code !== undefined ? { code: exit.code } : {}), group: GROUP } });
    } else if (status.state === 'running' && before.state !== 'running') {
      this.emit({ type: 'running', threadId: 'all' });
      this.watchRun();
    } else if (status.state === 'stopped' && (before.state !== 'stopped' || count !== this.stopCount)) {
      if (before.state === 'stopped') this.emit({ type: 'running', threadId: 'all' });
      this.stopCount = count;
      this.emit({ type: 'stopped', stop: await this.readStop(signal) });
    }
  }

  /** Reads the state every RUNNING_POLL_MS while the program runs, so a wait sees the stop. */
  private watchRun(): void {
    if (this.poll) return;
    this.poll = setInterval(() => {
      if (this.ended() || this.status.state !== 'running') {
        clearInterval(this.poll);
        this.poll = undefined;
        return;
      }
      this.refresh(undefined, true).catch(() => {});
    }, RUNNING_POLL_MS);
    this.poll.unref();
  }

  /** The stop as it stands: the threads, the selected one's reason and frame. */
  private async readStop(signal?: AbortSignal): Promise<StopEvent> {
    const list = narrowThreadList(await this.must('thread list', signal));
    for (const t of list.threads) this.emit({ type: 'thread-created', id: t.id, group: GROUP });
    // The thread with a stop reason is the one that stopped; the person may have selected another.
    const stopped = [...list.reasons.keys()];
    const threadId =
      list.currentThreadId !== undefined && list.reasons.has(list.currentThreadId)
        ? list.currentThreadId
        : (stopped[0] ?? list.currentThreadId);
    this.stopThread = threadId;
    const reason = threadId === undefined ? undefined : list.reasons.get(threadId);
    const thread = list.threads.find((t) => t.id === threadId);
    const frame = thread?.frame ? await this.withSource(thread.frame, signal) : undefined;
    return {
      ...(reason ? narrowStopReason(reason) : { reason: 'unknown' as const }),
      ...(threadId !== undefined ? { threadId } : {}),
      ...(frame ? { frame } : {}),
      stoppedThreads: 'all',
    };
  }

  /** A frame with the full path of its source, asked of LLDB once per file (`source info -a PC`). */
  async withSource(frame: Frame, signal?: AbortSignal): Promise<Frame> {
    if (frame.file === undefined || frame.address === undefined || isAbsolute(frame.file)) return frame;
    if (SYSTEM_LIBRARY.test(frame.library ?? '')) return frame;
    const key = `${frame.library ?? ''}\`${frame.file}`;
    let full = this.sources.get(key);
    if (full === undefined) {
      const said = await this.run(`source info -a ${frame.address}`, signal);
      full = said.isError ? '' : (narrowSourceInfo(said.text) ?? '');
      if (this.sources.size < 4096) this.sources.set(key, full);
    }
    return full && isAbsolute(full) ? { ...frame, fullname: full } : frame;
  }

  /**
   * Runs `work` with thread `threadId`, frame `frame` selected, then puts back what the person had
   * selected: their thread, and the frame that thread had selected.
   */
  async withSelection<T>(sel: FrameSelector, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const wantThread = sel.threadId ?? this.stopThread;
    const wantFrame = sel.frame ?? 0;
    const list = narrowThreadList(await this.must('thread list', signal));
    const personThread = list.currentThreadId;
    const moveThread = wantThread !== undefined && wantThread !== personThread;
    if (moveThread) {
      if (!list.threads.some((t) => t.id === wantThread)) {
        throw new DebuggerError('invalid_argument', `no thread ${wantThread} (dbg_inspect view=threads lists them)`);
      }
      await this.must(`thread select ${wantThread}`, signal);
    }
    const threadFrame = narrowFrameInfo(await this.run('frame info', signal).then((r) => r.text));
    try {
      if (threadFrame !== wantFrame) await this.must(`frame select ${wantFrame}`, signal);
      return await work();
    } finally {
      // Back as it was, even when the work failed: the person's session must not move.
      if (threadFrame !== undefined && threadFrame !== wantFrame)
        await this.run(`frame select ${threadFrame}`).catch(() => {});
      if (moveThread && personThread !== undefined) await this.run(`thread select ${personThread}`).catch(() => {});
    }
  }
}
