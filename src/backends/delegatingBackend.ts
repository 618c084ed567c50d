// A backend built on another one (rr's replay and winedbg's proxy both run through the GDB
// backend): every operation goes to the inner backend unless the subclass says otherwise.

import type {
  Breakpoint,
  Frame,
  Library,
  MemoryBlock,
  Register,
  SourceLine,
  Thread,
  Variable,
} from '../model/model.js';
import type { OutputRing } from '../process/outputRing.js';
import type {
  BackendCapabilities,
  BackendEvent,
  BackendInfo,
  BreakpointChange,
  BreakpointSpec,
  CommandOptions,
  CommandOutput,
  DebuggerBackend,
  DisassembleRequest,
  Disassembly,
  FrameSelector,
  OpenReport,
  ResumeAction,
  ResumeOptions,
  SetBreakpoint,
  StackOptions,
  StartMode,
  StdinReport,
  TargetRuntime,
  TargetSpec,
  ValueFormat,
} from './debuggerBackend.js';

export abstract class DelegatingBackend<Inner extends DebuggerBackend> implements DebuggerBackend {
  abstract readonly capabilities: BackendCapabilities;
  abstract open(target: TargetSpec, signal?: AbortSignal): Promise<OpenReport>;

  constructor(protected readonly inner: Inner) {}

  get info(): BackendInfo {
    return this.inner.info;
  }
  get runtime(): TargetRuntime {
    return this.inner.runtime;
  }
  get output(): OutputRing | undefined {
    return this.inner.output;
  }
  get console(): OutputRing | undefined {
    return this.inner.console;
  }
  stderrTail(): string[] {
    return this.inner.stderrTail();
  }
  subscribe(listener: (event: BackendEvent) => void): () => void {
    return this.inner.subscribe(listener);
  }
  start(mode: StartMode, signal?: AbortSignal): Promise<void> {
    return this.inner.start(mode, signal);
  }
  resume(action: ResumeAction, options: ResumeOptions, signal?: AbortSignal): Promise<void> {
    return this.inner.resume(action, options, signal);
  }
  interrupt(): Promise<void> {
    return this.inner.interrupt();
  }
  forceInterrupt(step: number): string | undefined {
    return this.inner.forceInterrupt?.(step);
  }
  kill(signal?: AbortSignal): Promise<void> {
    return this.inner.kill(signal);
  }
  writeStdin(data: string | Buffer, deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    return this.inner.writeStdin(data, deadline, signal);
  }
  sendEof(deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    return this.inner.sendEof(deadline, signal);
  }
  insertBreakpoint(spec: BreakpointSpec, signal?: AbortSignal): Promise<SetBreakpoint> {
    return this.inner.insertBreakpoint(spec, signal);
  }
  changeBreakpoints(change: BreakpointChange, signal?: AbortSignal): Promise<void> {
    return this.inner.changeBreakpoints(change, signal);
  }
  listBreakpoints(signal?: AbortSignal): Promise<Breakpoint[]> {
    return this.inner.listBreakpoints(signal);
  }
  stack(options: StackOptions, signal?: AbortSignal): Promise<Frame[]> {
    return this.inner.stack(options, signal);
  }
  stackDepth(threadId: number | undefined, max: number, signal?: AbortSignal): Promise<number> {
    return this.inner.stackDepth(threadId, max, signal);
  }
  threads(signal?: AbortSignal): Promise<{ threads: Thread[]; currentThreadId?: number }> {
    return this.inner.threads(signal);
  }
  variables(
    which: 'locals' | 'args' | 'all',
    selector: FrameSelector,
    options: { types?: boolean },
    signal?: AbortSignal,
  ): Promise<Variable[]> {
    return this.inner.variables(which, selector, options, signal);
  }
  evaluate(
    expression: string,
    selector: FrameSelector & { format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<string> {
    return this.inner.evaluate(expression, selector, signal);
  }
  assign(target: string, value: string, selector: FrameSelector, signal?: AbortSignal): Promise<string> {
    return this.inner.assign(target, value, selector, signal);
  }
  registers(
    selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<Register[]> {
    return this.inner.registers(selector, signal);
  }
  async stackPointer(selector: FrameSelector, signal?: AbortSignal): Promise<bigint | undefined> {
    return this.inner.stackPointer?.(selector, signal);
  }
  async symbolAt(address: bigint, signal?: AbortSignal): Promise<string | undefined> {
    return this.inner.symbolAt?.(address, signal);
  }
  readMemory(address: string, count: number, signal?: AbortSignal): Promise<MemoryBlock[]> {
    return this.inner.readMemory(address, count, signal);
  }
  writeMemory(address: string, hex: string, signal?: AbortSignal): Promise<void> {
    return this.inner.writeMemory(address, hex, signal);
  }
  disassemble(request: DisassembleRequest, signal?: AbortSignal): Promise<Disassembly> {
    return this.inner.disassemble(request, signal);
  }
  sourceLines(file: string, from: number, to: number, signal?: AbortSignal): Promise<SourceLine[]> {
    return this.inner.sourceLines(file, from, to, signal);
  }
  libraries(signal?: AbortSignal): Promise<Library[]> {
    return this.inner.libraries(signal);
  }
  /** Raw commands are read in this backend's dialect (rr's commands on top of GDB's), not the inner one's. */
  command(text: string, options: CommandOptions, signal?: AbortSignal): Promise<CommandOutput> {
    return this.inner.command(text, { dialect: this.capabilities.rawDialect, ...options }, signal);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
