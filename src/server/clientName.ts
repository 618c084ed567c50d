// Who calls, from a request's context: the transport names HTTP and socket clients in AuthInfo
// (a token's name, `local`, `loopback`); a request without it came over stdio, which has one client.

import type { AuthInfo } from '@modelcontextprotocol/server';
import { STDIO_CLIENT } from '../session/sessionOwners.js';

export function clientName(ctx: { http?: { authInfo?: AuthInfo | undefined } | undefined }): string {
  return ctx.http?.authInfo?.clientId ?? STDIO_CLIENT;
}
