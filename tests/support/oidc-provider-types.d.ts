// oidc-provider 9 ships no type declarations; the parts tests/support/oidc-provider.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }
  interface GrantConstructor {
    new (init: { clientId: string; accountId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }
  interface KoaContext {
    oidc: {
      provider: Provider;
      result?: { consent?: { grantId?: string } };
      session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
      client?: { clientId: string };
    };
  }
  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  interface Configuration {
    clients?: Record<string, unknown>[];
    jwks?: { keys: unknown[] };
    cookies?: { keys: string[] };
    claims?: Record<string, string[]>;
    pkce?: { required?: () => boolean };
    ttl?: Record<string, number>;
    features?: Record<string, unknown>;
    interactions?: { url(ctx: KoaContext, interaction: { uid: string }): string };
    findAccount?(ctx: KoaContext, sub: string): Promise<Account | undefined>;
    loadExistingGrant?(ctx: KoaContext): Promise<Grant | undefined>;
  }
  interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
  }
  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    Grant: GrantConstructor;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>,
      opts?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  }
}
