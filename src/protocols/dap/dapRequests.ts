// The requests a client may send under the Debug Adapter Protocol (as of @vscode/debugprotocol
// 1.68.0): the argument and response type of each, and the capability an adapter must advertise
// before a client may send it. The spec's own words, in the .d.ts beside each request: "Clients
// should only call this request if the corresponding capability `supportsXxx` is true."
//
// The table is enforced, not advisory: an adapter that receives a request it does not implement
// may never answer it and leave the caller waiting for its deadline (reported of older lldb-dap;
// 22.1.8 answers `unknown request`: docs/notes/lldb-dap.md), so a request whose flag is absent is
// refused before anything is written.

import type { DebugProtocol as P } from '@vscode/debugprotocol';

/** Launch and attach take adapter-specific fields beside the spec's few. */
type Open<T> = T & Record<string, unknown>;

/** Each client request: its arguments and its (successful) response. */
export interface DapRequests {
  cancel: { arguments: P.CancelArguments; response: P.CancelResponse };
  initialize: { arguments: P.InitializeRequestArguments; response: P.InitializeResponse };
  configurationDone: { arguments: P.ConfigurationDoneArguments | undefined; response: P.ConfigurationDoneResponse };
  launch: { arguments: Open<P.LaunchRequestArguments>; response: P.LaunchResponse };
  attach: { arguments: Open<P.AttachRequestArguments>; response: P.AttachResponse };
  restart: { arguments: P.RestartArguments | undefined; response: P.RestartResponse };
  disconnect: { arguments: P.DisconnectArguments | undefined; response: P.DisconnectResponse };
  terminate: { arguments: P.TerminateArguments | undefined; response: P.TerminateResponse };
  breakpointLocations: { arguments: P.BreakpointLocationsArguments; response: P.BreakpointLocationsResponse };
  setBreakpoints: { arguments: P.SetBreakpointsArguments; response: P.SetBreakpointsResponse };
  setFunctionBreakpoints: { arguments: P.SetFunctionBreakpointsArguments; response: P.SetFunctionBreakpointsResponse };
  setExceptionBreakpoints: {
    arguments: P.SetExceptionBreakpointsArguments;
    response: P.SetExceptionBreakpointsResponse;
  };
  dataBreakpointInfo: { arguments: P.DataBreakpointInfoArguments; response: P.DataBreakpointInfoResponse };
  setDataBreakpoints: { arguments: P.SetDataBreakpointsArguments; response: P.SetDataBreakpointsResponse };
  setInstructionBreakpoints: {
    arguments: P.SetInstructionBreakpointsArguments;
    response: P.SetInstructionBreakpointsResponse;
  };
  continue: { arguments: P.ContinueArguments; response: P.ContinueResponse };
  next: { arguments: P.NextArguments; response: P.NextResponse };
  stepIn: { arguments: P.StepInArguments; response: P.StepInResponse };
  stepOut: { arguments: P.StepOutArguments; response: P.StepOutResponse };
  stepBack: { arguments: P.StepBackArguments; response: P.StepBackResponse };
  reverseContinue: { arguments: P.ReverseContinueArguments; response: P.ReverseContinueResponse };
  restartFrame: { arguments: P.RestartFrameArguments; response: P.RestartFrameResponse };
  goto: { arguments: P.GotoArguments; response: P.GotoResponse };
  pause: { arguments: P.PauseArguments; response: P.PauseResponse };
  stackTrace: { arguments: P.StackTraceArguments; response: P.StackTraceResponse };
  scopes: { arguments: P.ScopesArguments; response: P.ScopesResponse };
  variables: { arguments: P.VariablesArguments; response: P.VariablesResponse };
  setVariable: { arguments: P.SetVariableArguments; response: P.SetVariableResponse };
  source: { arguments: P.SourceArguments; response: P.SourceResponse };
  threads: { arguments: undefined; response: P.ThreadsResponse };
  terminateThreads: { arguments: P.TerminateThreadsArguments; response: P.TerminateThreadsResponse };
  modules: { arguments: P.ModulesArguments; response: P.ModulesResponse };
  loadedSources: { arguments: P.LoadedSourcesArguments | undefined; response: P.LoadedSourcesResponse };
  evaluate: { arguments: P.EvaluateArguments; response: P.EvaluateResponse };
  setExpression: { arguments: P.SetExpressionArguments; response: P.SetExpressionResponse };
  stepInTargets: { arguments: P.StepInTargetsArguments; response: P.StepInTargetsResponse };
  gotoTargets: { arguments: P.GotoTargetsArguments; response: P.GotoTargetsResponse };
  completions: { arguments: P.CompletionsArguments; response: P.CompletionsResponse };
  exceptionInfo: { arguments: P.ExceptionInfoArguments; response: P.ExceptionInfoResponse };
  readMemory: { arguments: P.ReadMemoryArguments; response: P.ReadMemoryResponse };
  writeMemory: { arguments: P.WriteMemoryArguments; response: P.WriteMemoryResponse };
  disassemble: { arguments: P.DisassembleArguments; response: P.DisassembleResponse };
  locations: { arguments: P.LocationsArguments; response: P.LocationsResponse };
}

export type DapCommand = keyof DapRequests;

/** A boolean capability flag. */
export type DapCapabilityFlag = {
  [K in keyof P.Capabilities]-?: NonNullable<P.Capabilities[K]> extends boolean ? K : never;
}[keyof P.Capabilities];

/**
 * The capability each request needs, from the spec. `null`: every adapter must answer it.
 * `setExceptionBreakpoints` needs a non-empty `exceptionBreakpointFilters` list instead of a flag.
 */
export const REQUEST_CAPABILITY: {
  readonly [C in DapCommand]: DapCapabilityFlag | 'exceptionBreakpointFilters' | null;
} = {
  cancel: 'supportsCancelRequest',
  initialize: null,
  configurationDone: 'supportsConfigurationDoneRequest',
  launch: null,
  attach: null,
  restart: 'supportsRestartRequest',
  disconnect: null,
  terminate: 'supportsTerminateRequest',
  breakpointLocations: 'supportsBreakpointLocationsRequest',
  setBreakpoints: null,
  setFunctionBreakpoints: 'supportsFunctionBreakpoints',
  setExceptionBreakpoints: 'exceptionBreakpointFilters',
  dataBreakpointInfo: 'supportsDataBreakpoints',
  setDataBreakpoints: 'supportsDataBreakpoints',
  setInstructionBreakpoints: 'supportsInstructionBreakpoints',
  continue: null,
  next: null,
  stepIn: null,
  stepOut: null,
  stepBack: 'supportsStepBack',
  reverseContinue: 'supportsStepBack',
  restartFrame: 'supportsRestartFrame',
  goto: 'supportsGotoTargetsRequest',
  pause: null,
  stackTrace: null,
  scopes: null,
  variables: null,
  setVariable: 'supportsSetVariable',
  source: null,
  threads: null,
  terminateThreads: 'supportsTerminateThreadsRequest',
  modules: 'supportsModulesRequest',
  loadedSources: 'supportsLoadedSourcesRequest',
  evaluate: null,
  setExpression: 'supportsSetExpression',
  stepInTargets: 'supportsStepInTargetsRequest',
  gotoTargets: 'supportsGotoTargetsRequest',
  completions: 'supportsCompletionsRequest',
  exceptionInfo: 'supportsExceptionInfoRequest',
  readMemory: 'supportsReadMemoryRequest',
  writeMemory: 'supportsWriteMemoryRequest',
  disassemble: 'supportsDisassembleRequest',
  // The spec gives `locations` no flag: it resolves references the adapter itself handed out
  // (lldb-dap 22 does, as `declarationLocationReference` on variables).
  locations: null,
};

export function isDapCommand(command: string): command is DapCommand {
  return Object.hasOwn(REQUEST_CAPABILITY, command);
}

/**
 * The capability `command` needs that `capabilities` does not grant, or undefined when it may be
 * sent. Before the `initialize` response every guarded request is refused.
 */
export function missingCapability(command: DapCommand, capabilities: P.Capabilities | undefined): string | undefined {
  const needed = REQUEST_CAPABILITY[command];
  if (needed === null) return undefined;
  if (needed === 'exceptionBreakpointFilters') {
    const filters = capabilities?.exceptionBreakpointFilters;
    return Array.isArray(filters) && filters.length > 0 ? undefined : needed;
  }
  return capabilities?.[needed] === true ? undefined : needed;
}
