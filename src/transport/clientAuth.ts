// Who is calling: the name of the bearer token's line in --token-file, or, without a token,
// `local` on the owner-only unix socket and `loopback` on loopback HTTP (possible only when no
// token file is given). The SDK's bearer verification parses the header and builds the 401
// challenge; the TokenStore says whose token it is. The name travels to the tools as
// AuthInfo.clientId; AuthInfo.token stays empty, so the secret goes no further than this file.

import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { TokenStore } from './tokenStore.js';

export type ListenerKind = 'tcp' | 'unix';

export type AuthOutcome =
  | { ok: true; auth: AuthInfo }
  | { ok: false; reason: 'no_token' | 'bad_token'; response: Response };

/** Our tokens do not expire; the SDK's verification wants a time all the same. */
const NEVER = Number.MAX_SAFE_INTEGER;

export function clientAuthInfo(name: string, via: ListenerKind): AuthInfo {
  return { token: '', clientId: name, scopes: [], expiresAt: NEVER, extra: { via } };
}

export class ClientAuth {
  constructor(private readonly tokens: TokenStore | undefined) {}

  /** Whether requests on TCP must carry a token (a token file was given). */
  get required(): boolean {
    return this.tokens !== undefined;
  }

  async authenticate(authorization: string | undefined, via: ListenerKind): Promise<AuthOutcome> {
    const tokens = this.tokens;
    if (tokens === undefined) return { ok: true, auth: clientAuthInfo(via === 'unix' ? 'local' : 'loopback', via) };
    // The socket is owner-only: its clients are this user already, a token only names them.
    if (via === 'unix' && (authorization === undefined || authorization === '')) {
      return { ok: true, auth: clientAuthInfo('local', via) };
    }
    const verifier: OAuthTokenVerifier = {
      verifyAccessToken: async (token) => {
        const name = tokens.verify(token);
        if (name === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Unknown token');
        return clientAuthInfo(name, via);
      },
    };
    try {
      return { ok: true, auth: await verifyBearerToken(authorization, { verifier }) };
    } catch (e) {
      return {
        ok: false,
        reason: authorization === undefined || authorization === '' ? 'no_token' : 'bad_token',
        response: bearerAuthChallengeResponse(e),
      };
    }
  }
}
